#!/bin/sh
# Generate deck designs with synth.py: one folder per seed and size,
# $SYNTH_OUT/synth-<seed>-<size> (default var/synth), sizes $SYNTH_SIZES (default "poker bridge"),
# each validated (synth_check.py) with its contact sheet in $SYNTH_OUT/sheets/.
# Needs root for apt-get (the fonts) and PyPI (the venv /tmp/deckvenv that render.sh makes too).
# usage: synth.sh SEED ...     e.g. synth.sh 9101 9102 9103
set -e
[ $# -gt 0 ] || { echo "usage: synth.sh SEED ..." >&2; exit 2; }
if ! [ -f /usr/share/fonts/opentype/urw-base35/NimbusSans-Bold.otf ] \
    || ! [ -f /usr/share/fonts/truetype/freefont/FreeSans.ttf ] \
    || ! [ -f /usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf ] \
    || ! [ -f /usr/share/fonts/truetype/dejavu/DejaVuSerifCondensed-Bold.ttf ]; then
  apt-get update -q
  apt-get install -y -q --no-install-recommends fonts-dejavu fonts-liberation fonts-freefont-ttf \
    fonts-urw-base35
fi
[ -x /tmp/deckvenv/bin/python ] || python3 -m venv /tmp/deckvenv
/tmp/deckvenv/bin/python -c "import PIL, numpy" 2>/dev/null \
  || /tmp/deckvenv/bin/pip install -q pillow numpy opencv-python-headless
out="${SYNTH_OUT:-var/synth}"
bad=0
for seed in "$@"; do
  for size in ${SYNTH_SIZES:-poker bridge}; do
    /tmp/deckvenv/bin/python "$(dirname "$0")/synth.py" --seed "$seed" --size "$size" \
      --out "$out/synth-$seed-$size" || bad=1
  done
done
exit $bad
