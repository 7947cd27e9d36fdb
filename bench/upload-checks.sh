#!/usr/bin/env bash
# What the capture checks add to an upload (issue 39), and the upload against the `vips` command
# line doing the same work. Builds bench-imaging (release), makes two 12-megapixel JPEGs from the
# portrait fixture with `vips` (a selfie with a real face, a premises-like collage), runs
# bench-imaging over them (the re-encode alone, with the measures, with faces too: alternating, in
# one process), then `vips thumbnail` with the normalizer's parameters on the same photos, as many
# rounds. Prints a markdown table and, last, one line of JSON with the verdict
# (docs/performance.md, "Capture checks at upload").
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: bench/upload-checks.sh

Environment: BENCH_ROUNDS (default 5), BENCH_IMAGING_BIN (default: swift build -c release
--product bench-imaging, then .build/release/bench-imaging).

Goal: the checks add at most 30 % to the upload's CPU time, for every photo and both kinds of
step (the selfie's face detection included). The reference `vips` runs with
--vips-concurrency=1, as the service's libvips does. Needs libvips-tools (installed through
scripts/setup-debian.sh when missing). Touches only a temporary directory.
Prints a markdown table, then the JSON summary as the last line of stdout.
EOF
}
case "${1:-}" in
    -h|--help) usage >&2; exit 0 ;;
    "") ;;
    *) usage >&2; exit 64 ;;
esac

cd "$(dirname "$0")/.."
REPO=$(pwd)
MODE=upload-checks
WORK=$(mktemp -d /tmp/hosted-upload-checks.XXXXXX)
ROUNDS=${BENCH_ROUNDS:-5}
# shellcheck source=bench/lib.sh
source "$REPO/bench/lib.sh"

command -v vips >/dev/null || scripts/setup-debian.sh libvips-tools >&2
command -v vips >/dev/null || die "no vips command (Debian libvips-tools)"

BIN=${BENCH_IMAGING_BIN:-}
if [[ -z $BIN ]]; then
    log "building bench-imaging (release)"
    swift build -c release --product bench-imaging >&2
    BIN=$REPO/.build/release/bench-imaging
fi
[[ -x $BIN ]] || die "no $BIN"

# --- the photos: 12 megapixels, with a phone sensor's noise (sigma 6 of 255) -----------------
FIXTURES=$REPO/Tests/HostedImagingTests/Fixtures
noisy_jpeg() {  # noisy_jpeg IN.v OUT.jpg WIDTH HEIGHT
    vips gaussnoise "$WORK/noise.v" "$3" "$4" --sigma 6 --mean 0
    vips add "$1" "$WORK/noise.v" "$WORK/sum.v"
    vips cast "$WORK/sum.v" "$WORK/cast.v" uchar
    vips jpegsave "$WORK/cast.v" "$2" --Q 92
    rm -f "$WORK/noise.v" "$WORK/sum.v" "$WORK/cast.v"
}
log "making the photos in $WORK"
# A selfie, 3000 × 4000: the portrait fixture enlarged 5× (the face 43 % of the width), its top
# and bottom mirrored out.
vips resize "$FIXTURES/portrait.jpg" "$WORK/face.v" 5
vips embed "$WORK/face.v" "$WORK/selfie.v" 0 500 3000 4000 --extend mirror
noisy_jpeg "$WORK/selfie.v" "$WORK/selfie.jpg" 3000 4000
# A premises-like photo, 4000 × 3000: twelve 1000 px tiles of the fixtures (a cat, a man in
# profile, two faces), so it has edges and detail everywhere.
tiles=()
names=(cat profile two-faces)
for index in $(seq 0 11); do
    vips thumbnail "$FIXTURES/${names[index % 3]}.jpg" "$WORK/tile$index.v" 1000 --height 1000 --size force
    tiles+=("$WORK/tile$index.v")
done
vips arrayjoin "${tiles[*]}" "$WORK/premises.v" --across 4
noisy_jpeg "$WORK/premises.v" "$WORK/premises.jpg" 4000 3000
rm -f "$WORK"/*.v
PHOTOS=("$WORK/selfie.jpg" "$WORK/premises.jpg")
# For the command line's start-up cost alone.
vips black "$WORK/tiny.v" 16 16 --bands 3 && vips jpegsave "$WORK/tiny.v" "$WORK/tiny.jpg" && rm -f "$WORK/tiny.v"

# --- the upload path ---------------------------------------------------------------------------
log "bench-imaging, $ROUNDS rounds"
"$BIN" --rounds "$ROUNDS" "${PHOTOS[@]}" >"$WORK/bench.json"

# --- the reference, and the report -----------------------------------------------------------------
log "vips thumbnail, $ROUNDS rounds"
python3 - "$WORK" "$ROUNDS" "$WORK/bench.json" "${PHOTOS[@]}" <<'PY'
import json, os, statistics, subprocess, sys

work, rounds, bench_path, photos = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
bench = json.load(open(bench_path))

# The normalizer's work (VipsImageNormalizer with its defaults): decode (fail_on=warning for a
# JPEG), shrink to fit 2560 × 2560 without enlarging, sRGB 8-bit, JPEG Q 85, optimised Huffman
# tables, no metadata; one libvips thread.
def cli(photo):
    return ["vips", "--vips-concurrency=1", "thumbnail", photo,
            os.path.join(work, "cli-out.jpg[Q=85,strip,optimize_coding]"),
            "2560", "--height", "2560", "--size", "down", "--fail-on", "warning"]

def cpu_ms(command):
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    error = process.stderr.read().decode(errors="replace")
    if process.returncode != 0:
        sys.exit(f"bench: {' '.join(command)} failed ({process.returncode}): {error[:300]}")
    return (usage.ru_utime + usage.ru_stime) * 1000

for photo in photos + [os.path.join(work, "tiny.jpg")]:
    cpu_ms(cli(photo))  # warm-up: the page cache, the dynamic loader's
runs = {photo: [] for photo in photos}
startup = []
for turn in range(rounds):
    order = photos if turn % 2 == 0 else photos[::-1]
    for photo in order:
        runs[photo].append(cpu_ms(cli(photo)))
    startup.append(cpu_ms(cli(os.path.join(work, "tiny.jpg"))))
start_ms = statistics.median(startup)

GOAL = 0.30
rows, summary = [], {"rounds": rounds, "goal_checks_add_at_most": GOAL, "photos": [],
                     "vips_cli_startup_cpu_ms": round(start_ms, 1)}
for photo, figures in zip(photos, bench["photos"]):
    name = os.path.basename(photo)
    assert figures["file"] == name
    cpu = figures["cpu_ms_median"]
    vips_ms = statistics.median(runs[photo])
    entry = {
        "file": name, "size": f"{figures['width']}x{figures['height']}", "bytes": figures["bytes"],
        "stored": f"{figures['stored_width']}x{figures['stored_height']}", "faces": figures["faces"],
        "normalize_cpu_ms": cpu["normalize"], "premises_cpu_ms": cpu["premises"], "selfie_cpu_ms": cpu["selfie"],
        "checks_add_premises": figures["checks_add_premises"], "checks_add_selfie": figures["checks_add_selfie"],
        "normalize_rounds": figures["rounds"]["normalize"], "premises_rounds": figures["rounds"]["premises"],
        "selfie_rounds": figures["rounds"]["selfie"],
        "vips_cli_cpu_ms": round(vips_ms, 1), "vips_cli_rounds": [round(v, 1) for v in runs[photo]],
        "normalize_over_vips_cli": round(cpu["normalize"] / vips_ms, 3),
        "normalize_over_vips_cli_without_startup": round(cpu["normalize"] / (vips_ms - start_ms), 3),
    }
    summary["photos"].append(entry)
worst = max(max(p["checks_add_premises"], p["checks_add_selfie"]) for p in summary["photos"])
summary["worst_checks_add"] = worst
summary["goal_met"] = worst <= GOAL

pct = lambda v: f"{v * 100:+.1f} %"
print(f"Upload CPU per photo, median of {rounds} rounds (ms; bench-imaging, one decode thread)\n")
print("| photo | stored | faces | re-encode alone (a) | + measures (b) | + faces too (c) | (b−a)/a | (c−a)/a "
      "| vips CLI | a / vips CLI | a / (vips CLI − start-up) |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for p in summary["photos"]:
    print(f"| {p['file']} {p['size']}, {p['bytes'] / 1e6:.1f} MB | {p['stored']} | {p['faces']} | {p['normalize_cpu_ms']} "
          f"| {p['premises_cpu_ms']} | {p['selfie_cpu_ms']} | {pct(p['checks_add_premises'])} | {pct(p['checks_add_selfie'])} "
          f"| {p['vips_cli_cpu_ms']} | {p['normalize_over_vips_cli'] * 100:.0f} % "
          f"| {p['normalize_over_vips_cli_without_startup'] * 100:.0f} % |")
print(f"\nvips CLI start-up (a 16 × 16 JPEG): {start_ms:.1f} ms CPU. Goal: the checks add ≤ {GOAL * 100:.0f} % "
      f"— worst {worst * 100:.1f} %: {'met' if summary['goal_met'] else 'NOT met'}.\n")
print(json.dumps(summary, sort_keys=True))
PY
