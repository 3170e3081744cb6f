#!/bin/sh
# Render the other deck designs into $DECKS_OUT (default var/decks), building in $DECKS_BUILD
# (default /tmp/deckbuild; emptied first) (needs root for apt-get; npm; the package registries).
# Arguments: design names, or fresh-17 for that group (bridge variants included); none: all.
set -e
apt-get update -q
apt-get install -y -q --no-install-recommends librsvg2-bin inkscape
[ -x /tmp/deckvenv/bin/python ] || python3 -m venv /tmp/deckvenv
/tmp/deckvenv/bin/pip install -q cairosvg pillow numpy opencv-python-headless
rm -rf "${DECKS_BUILD:-/tmp/deckbuild}" /tmp/deckraw
/tmp/deckvenv/bin/python "$(dirname "$0")/render.py" "$@"
/tmp/deckvenv/bin/python "$(dirname "$0")/check.py"
