#!/usr/bin/env python3
"""Validate generated designs (synth.py): check.py's checks, then the generator's own.

usage: synth_check.py DESIGN_DIR ...   (folders synth.py wrote; each has its design.json)
Exit status 1 if any folder fails. Writes each contact sheet to <DIR>/../sheets/<name>.png.

The generator's own checks: the proportions of the size asked for (poker 63:88, bridge 57:89,
within 0.5 %); the paper light and not green (it must not look like the felt); the top-left
index of every card differs from every other card's of the same suit (ranks apart by the index
alone) and from the same rank's of the other suits; the bottom-right index is the top-left one
turned half a turn; the files are what the generator draws again now (the same seed, the same
faces).
"""
import json
import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check
import synth

# Two index crops differ by the share of their ink (pixels inked in either) that differs:
RANK_DIFF = 0.08  # at least, two ranks of one suit (3 and 8 are the nearest: 0.12-0.35 seen)
SUIT_DIFF = 0.02  # at least, one rank in two suits (two-colour clubs and spades: 0.04-0.15 seen)
TURN_DIFF = 6.0  # mean |difference| (0-255), bottom-right index against the top-left one turned
INK = 60  # a pixel is ink, or two pixels differ, past this in some channel


def ink_diff(a, b, paper):
    """Share of the ink of two crops (inked in either) that differs between them."""
    ink = (np.abs(a - paper).max(-1) > INK) | (np.abs(b - paper).max(-1) > INK)
    return float((np.abs(a - b).max(-1) > INK).sum() / max(1, ink.sum()))


def _load(folder, name):
    return np.asarray(Image.open(os.path.join(folder, name)).convert("RGBA")).astype(np.float32)


def validate(folder, deck):
    """Return (errors, summary) for a folder synth.py wrote with ``deck``."""
    errs, sizes = check.check(folder)
    d = deck.d
    size = "poker" if abs(deck.W / deck.H - synth.ASPECT["poker"]) < 0.01 else "bridge"
    for w, h in sizes:
        if abs(w / h - synth.ASPECT[size]) > 0.005 * synth.ASPECT[size]:
            errs.append(f"proportions {w}x{h} are not {size}")
    two = _load(folder, "2c.png")
    h, w = two.shape[:2]
    strip = two[h // 2 - 5:h // 2 + 5, deck.mx // synth.SS + 2:deck.x0 // synth.SS - 2, :3]
    paper = np.median(strip.reshape(-1, 3), axis=0) if strip.size else np.array([0, 0, 0])
    if paper.mean() < 200 or paper[1] > max(paper[0], paper[2]) + 6:
        errs.append(f"paper colour {paper.tolist()} is dark or green")
    x0, y0, x1, y1 = deck.index_box()
    crops = {}
    for r in synth.RANKS:
        for s in synth.SUITS:
            a = _load(folder, r + s + ".png")
            tl = a[y0:y1, x0:x1, :3]
            br = np.rot90(a[h - y1:h - y0, w - x1:w - x0, :3], 2)
            turn = float(np.abs(tl - br).mean())
            if turn > TURN_DIFF:
                errs.append(f"{r}{s}: bottom-right index differs from the top-left turned "
                            f"({turn:.1f})")
            crops[r + s] = tl
    rank_min, suit_min = 1e9, 1e9
    for s in synth.SUITS:
        for i, r in enumerate(synth.RANKS):
            for q in synth.RANKS[i + 1:]:
                v = ink_diff(crops[r + s], crops[q + s], paper)
                rank_min = min(rank_min, v)
                if v < RANK_DIFF:
                    errs.append(f"{r}{s} and {q}{s}: indices too alike ({v:.3f})")
    for r in synth.RANKS:
        for i, s in enumerate(synth.SUITS):
            for t in synth.SUITS[i + 1:]:
                v = ink_diff(crops[r + s], crops[r + t], paper)
                suit_min = min(suit_min, v)
                if v < SUIT_DIFF:
                    errs.append(f"{r}{s} and {r}{t}: indices too alike ({v:.3f})")
    for card in ("As", "Kh", "7d", "Qc"):
        again = np.asarray(deck.face(card[0], card[1]))
        if not np.array_equal(again, _load(folder, card + ".png").astype(np.uint8)):
            errs.append(f"{card}: drawn again, not the same image (not deterministic)")
    info = (f"{w}x{h} {size}, index {d['index']} x{d['corners']}, {d['colours']} colours, "
            f"pips {d['pips']}, courts {d['courts']}/{d['court_mode']}, "
            f"font {os.path.basename(d['font'])}; index ink differing, least: "
            f"ranks {rank_min:.2f}, suits {suit_min:.2f}")
    return errs, info


def main():
    """Command line: validate each folder named."""
    bad = 0
    for folder in sys.argv[1:]:
        with open(os.path.join(folder, "design.json")) as f:
            meta = json.load(f)
        deck = synth.Deck(meta["seed"], meta["size"], meta["height"])
        errs, info = validate(folder, deck)
        bad += check.report(folder, errs, info)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
