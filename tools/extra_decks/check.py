#!/usr/bin/env python3
"""Quality check for rendered card decks; writes contact sheets to <decks>/sheets/<design>.png.

usage: check.py [DESIGN_DIR ...]   (default: every folder in $DECKS_OUT or var/decks holding PNGs)
Exit status 1 if any design fails.
"""
import hashlib
import os
import sys

import numpy as np
from PIL import Image

RANKS = "23456789TJQKA"
SUITS = "cdhs"
NAMES = [r + s + ".png" for r in RANKS for s in SUITS]
HERE = os.environ.get("DECKS_OUT") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "var", "decks")


def check(d):
    errs = []
    pngs = sorted(f for f in os.listdir(d) if f.endswith(".png") and f != "sheet.png")
    if sorted(pngs) != sorted(NAMES):
        errs.append("file set wrong: extra=%s missing=%s"
                    % (sorted(set(pngs) - set(NAMES)), sorted(set(NAMES) - set(pngs))))
    sizes, hashes = set(), {}
    ims = {}
    for n in NAMES:
        p = os.path.join(d, n)
        if not os.path.exists(p):
            continue
        im = Image.open(p)
        if im.mode != "RGBA":
            errs.append(f"{n}: mode {im.mode}")
            im = im.convert("RGBA")
        a = np.asarray(im)
        h, w = a.shape[:2]
        sizes.add((w, h))
        bridge = abs(w / h - 57 / 89) < 0.005  # a bridge.py variant: 57:89, the same height
        if not ((280 <= w <= 320 or bridge) and 380 <= h <= 460):
            errs.append(f"{n}: size {w}x{h}")
        for (y, x) in [(0, 0), (0, w - 1), (h - 1, 0), (h - 1, w - 1)]:
            if a[y, x, 3] != 0:
                errs.append(f"{n}: corner ({x},{y}) alpha {a[y, x, 3]}")
        c = a[h // 4:3 * h // 4, w // 4:3 * w // 4, 3]
        if c.min() < 255:
            errs.append(f"{n}: centre not opaque (min alpha {c.min()})")
        # opaque region interior: sample points well inside the card edge
        for (y, x) in [(h // 2, 8), (h // 2, w - 9), (8, w // 2), (h - 9, w // 2)]:
            if a[y, x, 3] < 255:
                errs.append(f"{n}: edge-interior ({x},{y}) alpha {a[y, x, 3]}")
        hsh = hashlib.md5(a.tobytes()).hexdigest()
        if hsh in hashes:
            errs.append(f"{n}: identical to {hashes[hsh]}")
        hashes[hsh] = n
        ims[n] = im
    if len(sizes) > 1:
        errs.append(f"sizes differ: {sorted(sizes)}")
    # contact sheet: 13 columns (ranks) x 4 rows (suits)
    if ims:
        tw, th = 100, 140
        sheet = Image.new("RGB", (13 * (tw + 6) + 6, 4 * (th + 20) + 6), (20, 110, 50))
        from PIL import ImageDraw
        dr = ImageDraw.Draw(sheet)
        for j, s in enumerate(SUITS):
            for i, r in enumerate(RANKS):
                n = r + s + ".png"
                if n not in ims:
                    continue
                t = ims[n].resize((tw, th), Image.LANCZOS)
                x, y = 6 + i * (tw + 6), 6 + j * (th + 20)
                sheet.paste(t, (x, y), t)
                dr.text((x + 40, y + th + 3), r + s, fill=(255, 255, 0))
        sheets = os.path.join(os.path.dirname(os.path.abspath(d.rstrip("/"))), "sheets")
        os.makedirs(sheets, exist_ok=True)
        sheet.save(os.path.join(sheets, os.path.basename(d.rstrip("/")) + ".png"))
    return errs, sizes


def main():
    dirs = sys.argv[1:] or sorted(
        os.path.join(HERE, x) for x in os.listdir(HERE) if x != "sheets"
        if os.path.isdir(os.path.join(HERE, x)) and any(f.endswith(".png") for f in os.listdir(os.path.join(HERE, x))))
    bad = 0
    for d in dirs:
        errs, sizes = check(d)
        bad += report(d, errs, f"sizes={sorted(sizes)}")
    sys.exit(1 if bad else 0)


def report(folder, errs, info):
    """Print one folder's verdict and its first errors; return whether it failed."""
    print(f"{'OK' if not errs else 'FAIL':4} {os.path.basename(folder.rstrip('/'))}: {info}")
    for e in errs[:20]:
        print("     ", e)
    return bool(errs)


if __name__ == "__main__":
    main()
