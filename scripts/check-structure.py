#!/usr/bin/env python3
"""Checks the structure rules of issue 38 on the source tree and prints JSON.

Rules (each is a key of the output, with what breaks it):
  two_way        feature folders of Sources/HostedApp that use each other's types
  route_stores   route files (*Routes.swift) that hold a store
  service_reach  `service.store`, `service.clock`, `service.random` outside the service
  problem_files  files of HostedApp that build a `Problem` (only one may)
  placeholders   hand-numbered `$n` placeholders in storage SQL
  long_files     Swift files over 400 lines
  readme         README.md over 250 lines

Usage: scripts/check-structure.py [--root DIR] [--graph]
Exit status 0 when every rule holds, 1 otherwise, 64 on bad usage.
"""
import json
import os
import re
import sys

APP = "Sources/HostedApp"
DECLARATION = re.compile(r"^(?:public |internal |final |fileprivate |private |indirect )*"
                         r"(?:struct|class|enum|protocol|actor|typealias)\s+([A-Z][A-Za-z0-9_]*)", re.M)
IDENTIFIER = re.compile(r"\b[A-Z][A-Za-z0-9_]*\b")
COMMENT = re.compile(r"//.*$", re.M)
STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def swift_files(root, folder):
    for directory, _, names in os.walk(os.path.join(root, folder)):
        for name in sorted(names):
            if name.endswith(".swift"):
                yield os.path.join(directory, name)


def room(root, path):
    relative = os.path.relpath(path, os.path.join(root, APP))
    return relative.split(os.sep)[0] if os.sep in relative else "."


def code(path):
    with open(path, encoding="utf-8") as handle:
        return STRING.sub('""', COMMENT.sub("", handle.read()))


def dependencies(root):
    """Which room uses which other room's types: {room: {other room: [type, …]}}."""
    owner = {}
    texts = {}
    for path in swift_files(root, APP):
        text = code(path)
        texts[path] = text
        for name in DECLARATION.findall(text):
            owner.setdefault(name, room(root, path))
    uses = {}
    for path, text in texts.items():
        mine = room(root, path)
        for name in set(IDENTIFIER.findall(text)):
            theirs = owner.get(name)
            if theirs and theirs != mine:
                uses.setdefault(mine, {}).setdefault(theirs, set()).add(name)
    return {a: {b: sorted(names) for b, names in targets.items()} for a, targets in uses.items()}


def two_way(graph):
    found = []
    for a, targets in graph.items():
        for b in targets:
            if a < b and a in graph.get(b, {}):
                found.append({"rooms": [a, b], a + " uses": graph[a][b], b + " uses": graph[b][a]})
    return found


def placeholder_lines(path):
    """Lines whose SQL text (inside a string literal) numbers a `$n` placeholder by hand."""
    inside = False
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            text = line.split("///")[0] if not inside else line
            quotes = text.count('"""')
            literal = text if inside else " ".join(re.findall(r'"((?:[^"\\\n]|\\.)*)"', text))
            if quotes % 2 == 1:
                inside = not inside
            # `\($0…)` is a Swift closure argument interpolated into the text, not a placeholder.
            if re.search(r"(?<!\\\()\$[0-9]+", literal):
                yield number, line


def main(argv):
    root = "."
    show_graph = False
    arguments = list(argv)
    while arguments:
        argument = arguments.pop(0)
        if argument in ("-h", "--help"):
            print(__doc__, file=sys.stderr)
            return 0
        if argument == "--root" and arguments:
            root = arguments.pop(0)
        elif argument == "--graph":
            show_graph = True
        else:
            print("unknown argument: " + argument + "\n" + __doc__, file=sys.stderr)
            return 64
    graph = dependencies(root)
    report = {"two_way": two_way(graph), "route_stores": [], "service_reach": [], "problem_files": [],
              "placeholders": [], "long_files": [], "readme": []}
    for path in swift_files(root, APP):
        text = code(path)
        relative = os.path.relpath(path, root)
        if path.endswith("Routes.swift") and re.search(r"^\s*(?:let|var)\s+\w+\s*:\s*\w*Store\b", text, re.M):
            report["route_stores"].append(relative)
        if re.search(r"\bservice\.(store|clock|random)\b", text):
            report["service_reach"].append(relative)
        if re.search(r"\bProblem\s*\(", text):
            report["problem_files"].append(relative)
    if len(report["problem_files"]) <= 1:
        report["problem_files"] = []
    for path in swift_files(root, "Sources/HostedStorage"):
        for number, line in placeholder_lines(path):
            report["placeholders"].append(os.path.relpath(path, root) + ":" + str(number))
    for folder in ("Sources", "Tests"):
        for path in swift_files(root, folder):
            with open(path, encoding="utf-8") as handle:
                count = sum(1 for _ in handle)
            if count > 400:
                report["long_files"].append({"file": os.path.relpath(path, root), "lines": count})
    readme = os.path.join(root, "README.md")
    if os.path.exists(readme):
        with open(readme, encoding="utf-8") as handle:
            count = sum(1 for _ in handle)
        if count > 250:
            report["readme"].append({"file": "README.md", "lines": count})
    output = dict(report)
    output["ok"] = not any(report.values())
    if show_graph:
        output["graph"] = graph
    print(json.dumps(output, indent=2, sort_keys=True))
    return 0 if output["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
