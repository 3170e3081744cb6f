#!/usr/bin/env python3
"""Make bridge-size variants of rendered designs: each face rescaled to 57:89 (width / height).

usage: bridge.py DESIGN_DIR ...   writes <DESIGN_DIR>-bridge beside each (same height, narrower;
the corners stay transparent). A bridge deck is the poker design printed on a narrower card, so
this stands in for one where no package ships a narrow version of the design.
"""
import os
import sys

import cv2
import numpy as np

ASPECT = 57 / 89


def bridge(src):
    dst = src.rstrip("/") + "-bridge"
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if not name.endswith(".png"):
            continue
        face = cv2.imread(os.path.join(src, name), cv2.IMREAD_UNCHANGED)
        h = face.shape[0]
        w = int(round(h * ASPECT))
        out = cv2.resize(face, (w, h), interpolation=cv2.INTER_AREA)
        if out.shape[2] == 4:
            for y, x in [(0, 0), (0, w - 1), (h - 1, 0), (h - 1, w - 1)]:
                out[y, x, 3] = 0
        cv2.imwrite(os.path.join(dst, name), np.ascontiguousarray(out))
    with open(os.path.join(dst, "SOURCE.txt"), "w") as f:
        f.write(f"design: {os.path.basename(dst)}\nsource: {src} with every face rescaled to "
                f"width / height 57:89 by tools/extra_decks/bridge.py (INTER_AREA)\n")
    print(f"{dst}: 52 faces at 57:89")


if __name__ == "__main__":
    for d in sys.argv[1:]:
        bridge(d)
