#!/usr/bin/env bash
# Makes the capture-check fixtures from scikit-image's public-domain sample images (the PyPI
# `scikit-image` wheel ships them in skimage/data/). Needs libvips-tools and pip; run it by hand
# when a fixture must change: the tests read the committed files and never run this.
set -euo pipefail
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pip download --no-deps -q -d "$work" scikit-image
python3 - "$work" <<'PY'
import glob, sys, zipfile
work = sys.argv[1]
wheel = zipfile.ZipFile(glob.glob(f"{work}/*.whl")[0])
for name in ("astronaut.png", "camera.png", "chelsea.png"):
    open(f"{work}/{name}", "wb").write(wheel.read(f"skimage/data/{name}"))
PY
# A selfie: the astronaut's face (88 px wide in the 512 px image) cropped and enlarged 3×.
vips crop "$work/astronaut.png" "$work/face.v" 130 20 200 200
vips resize "$work/face.v" "$work/portrait.v" 3
vips jpegsave "$work/portrait.v" portrait.jpg --Q 85 --strip
vips linear portrait.jpg "$work/dark.v" 0.2 0 && vips jpegsave "$work/dark.v" portrait-dark.jpg --Q 85 --strip
vips linear portrait.jpg "$work/bright.v" 3 60 && vips jpegsave "$work/bright.v" portrait-bright.jpg --Q 85 --strip
vips gaussblur portrait.jpg "$work/blur.v" 12 && vips jpegsave "$work/blur.v" portrait-blurry.jpg --Q 85 --strip
# The same selfie far away (padded onto a grey canvas 4× its size) and twice side by side.
vips embed portrait.jpg "$work/far.v" 900 900 2400 2400 --extend background --background 128
vips resize "$work/far.v" "$work/far-small.v" 0.5
vips jpegsave "$work/far-small.v" portrait-far.jpg --Q 85 --strip
vips arrayjoin "portrait.jpg portrait.jpg" "$work/two.v" --across 2
vips jpegsave "$work/two.v" two-faces.jpg --Q 85 --strip
# No frontal face: a man in profile, and a cat.
vips resize "$work/camera.png" "$work/camera.v" 0.5 && vips jpegsave "$work/camera.v" profile.jpg --Q 85 --strip
vips jpegsave "$work/chelsea.png" cat.jpg --Q 85 --strip
# The selfie again, re-encoded at another quality (a near copy).
vips jpegsave portrait.jpg portrait-again.jpg --Q 60 --strip
