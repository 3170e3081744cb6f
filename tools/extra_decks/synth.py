#!/usr/bin/env python3
"""Generate a new card deck design from a seed.

Writes 52 faces ``<rank><suit>.png`` (RGBA, rounded transparent corners), the same form as
``examples/cards`` and ``var/decks``.

usage: synth.py --seed N --size poker|bridge --out DIR [--height PX] [--no-check]

Each seed draws a whole design from the space card rooms use (see README.md, "Generated
designs"): index typeface and size (normal or jumbo), two or four corner indices, suit shapes,
two or four colours, standard pip layouts or one central symbol, court pictures (one per court or
one shared by all twelve), ornate aces, borders, paper tint. The design depends on the seed only;
``--size`` lays the same design out on a poker (63:88) or bridge (57:89) card. The same seed gives
the same files with the same Pillow, FreeType and fonts (their versions are in ``design.json``).
After writing, the folder is validated (``check.py``'s checks and the generator's own; exit 1 on a
failure) and its contact sheet written to ``<DIR>/../sheets/<name>.png``.

Needs Pillow and numpy (the venv render.sh or synth.sh makes) and the Debian fonts synth.sh
installs (fonts-dejavu, fonts-liberation, fonts-freefont-ttf, fonts-urw-base35).
"""
import argparse
import json
import os
import sys
import zlib

import numpy as np
from PIL import Image, ImageDraw, ImageFont

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import synth_shapes as sh

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SS = 3  # drawn at 3x, then reduced: smooth edges
ASPECT = {"poker": 63 / 88, "bridge": 57 / 89}
FONT_ROOT = "/usr/share/fonts"
# (path under FONT_ROOT, bold); a fixed list, so a seed picks the same face on every machine
FONTS = [
    ("truetype/dejavu/DejaVuSans-Bold.ttf", True),
    ("truetype/dejavu/DejaVuSans.ttf", False),
    ("truetype/dejavu/DejaVuSerif-Bold.ttf", True),
    ("truetype/dejavu/DejaVuSerif.ttf", False),
    ("truetype/dejavu/DejaVuSansCondensed-Bold.ttf", True),
    ("truetype/dejavu/DejaVuSerifCondensed-Bold.ttf", True),
    ("truetype/liberation/LiberationSans-Bold.ttf", True),
    ("truetype/liberation/LiberationSans-Regular.ttf", False),
    ("truetype/liberation/LiberationSerif-Bold.ttf", True),
    ("truetype/liberation/LiberationSerif-Regular.ttf", False),
    ("truetype/liberation/LiberationSansNarrow-Bold.ttf", True),
    ("truetype/liberation/LiberationMono-Bold.ttf", True),
    ("truetype/freefont/FreeSansBold.ttf", True),
    ("truetype/freefont/FreeSans.ttf", False),
    ("truetype/freefont/FreeSerifBold.ttf", True),
    ("truetype/freefont/FreeSerif.ttf", False),
    ("truetype/freefont/FreeMonoBold.ttf", True),
    ("opentype/urw-base35/NimbusSans-Bold.otf", True),
    ("opentype/urw-base35/NimbusRoman-Bold.otf", True),
    ("opentype/urw-base35/NimbusSansNarrow-Bold.otf", True),
    ("opentype/urw-base35/C059-Bold.otf", True),
    ("opentype/urw-base35/P052-Bold.otf", True),
    ("opentype/urw-base35/URWBookman-Demi.otf", True),
    ("opentype/urw-base35/URWGothic-Demi.otf", True),
    ("opentype/urw-base35/URWBookman-Light.otf", False),
    ("opentype/urw-base35/C059-Roman.otf", False),
    ("opentype/urw-base35/NimbusRoman-Regular.otf", False),
]
PAPERS = {"white": (255, 255, 255), "bright": (252, 252, 250), "cream": (250, 244, 228),
          "ivory": (253, 250, 238), "warm": (247, 241, 226)}
REDS = [(200, 16, 46), (215, 25, 32), (190, 20, 30), (222, 42, 42), (175, 10, 35)]
BLACKS = [(0, 0, 0), (22, 22, 22), (15, 15, 38)]
GREENS = [(0, 128, 60), (10, 140, 40), (0, 110, 70), (30, 130, 50)]  # four-colour clubs
BLUES = [(0, 70, 200), (20, 80, 170), (0, 90, 190), (30, 60, 160)]  # four-colour diamonds
FRAME_COLOURS = [(20, 40, 120), (20, 20, 20), (170, 130, 40), (160, 20, 30), (90, 90, 90)]
EDGES = {"none": None, "grey": (150, 150, 150), "light": (200, 200, 200), "dark": (70, 70, 70)}
# rank -> pip places: (column 0 left / 1 middle / 2 right, row 0 top .. 1 bottom)
LAYOUT = {2: [(1, 0), (1, 1)], 3: [(1, 0), (1, .5), (1, 1)],
          4: [(0, 0), (2, 0), (0, 1), (2, 1)],
          6: [(c, r) for r in (0, .5, 1) for c in (0, 2)]}
LAYOUT[5] = LAYOUT[4] + [(1, .5)]
LAYOUT[7] = LAYOUT[6] + [(1, .25)]
LAYOUT[8] = LAYOUT[6] + [(1, .25), (1, .75)]
LAYOUT[9] = [(c, r) for r in (0, 1 / 3, 2 / 3, 1) for c in (0, 2)] + [(1, .5)]
LAYOUT[10] = [(c, r) for r in (0, 1 / 3, 2 / 3, 1) for c in (0, 2)] + [(1, 1 / 6), (1, 5 / 6)]


def pick(rng, options, p=None):
    """One of ``options`` (probabilities ``p``)."""
    return options[int(rng.choice(len(options), p=p))]


def share(seed, name, k, n=10):
    """Whether ``seed`` is one of the ``k`` in its block that get the first option of ``name``.

    Blocks are ``n`` consecutive seeds from 1 (1-10, 11-20, ..., 9101-9110): which seeds of a
    block get the option is drawn per block, how many is fixed, so that every block of ten (a
    measurement's batch) covers the space (stratified sampling).
    """
    block, pos = divmod(seed - 1, n)
    perm = np.random.default_rng([block, 99, zlib.crc32(name.encode())]).permutation(n)
    return int(perm[pos]) < k


def draw_design(seed):
    """Every choice of a design, from the seed alone (fractions of the card, not pixels).

    The main features are stratified over each block of ten seeds (:func:`share`): four of ten
    four-colour, four jumbo indices, four with indices in four corners, two with a central symbol
    only, two with one court picture for all twelve courts, six court figures, two abstract, two
    monograms. The rest is drawn independently per seed.
    """
    rng = np.random.default_rng([seed, 0])
    bold = [i for i, f in enumerate(FONTS) if f[1]]
    light = [i for i, f in enumerate(FONTS) if not f[1]]
    font = FONTS[pick(rng, bold) if rng.random() < 0.75 else pick(rng, light)][0]
    jumbo = share(seed, "jumbo", 4)
    mode = "figure" if share(seed, "court_mode", 6) else (
        "abstract" if share(seed, "court_mode", 8) else "monogram")
    d = {
        "seed": seed, "font": font, "index": "jumbo" if jumbo else "normal",
        "corners": 4 if share(seed, "corners", 4) else 2,
        "colours": 4 if share(seed, "colours", 4) else 2,
        "paper": pick(rng, list(PAPERS), [0.35, 0.15, 0.2, 0.15, 0.15]),
        "rank_h": rng.uniform(0.15, 0.19) if jumbo else rng.uniform(0.075, 0.10),
        "suit_h": rng.uniform(0.075, 0.10) if jumbo else rng.uniform(0.05, 0.068),
        "index_gap": rng.uniform(0.005, 0.015),
        "condense": rng.uniform(0.68, 0.88) if jumbo else rng.uniform(0.88, 1.05),
        # how wide "10" may be, over the widest other rank (it is condensed to fit)
        "ten_cap": rng.uniform(0.95, 1.1) if jumbo else rng.uniform(0.95, 1.25),
        "margin_x": rng.uniform(0.025, 0.05), "margin_y": rng.uniform(0.025, 0.045),
        "pips": "central" if share(seed, "pips", 2) else "standard",
        "pip_h": rng.uniform(0.11, 0.16), "pip_fill": rng.uniform(0.8, 1.0),
        "pip_inset": rng.uniform(0.0, 0.08), "central_h": rng.uniform(0.28, 0.42),
        "pip_frame": bool(rng.random() < 0.15),
        "courts": "shared" if share(seed, "courts", 2) else "each",
        "court_mode": mode,
        "palette": int(rng.integers(len(sh.PALETTES))),
        "ace": pick(rng, sh.ACE_STYLES), "ace_h": rng.uniform(0.3, 0.45),
        "ace_spades": pick(rng, sh.ACE_STYLES), "ace_spades_k": rng.uniform(1.0, 1.3),
        "border": pick(rng, ["none", "line", "double", "band"], [0.4, 0.3, 0.15, 0.15]),
        "border_inset": rng.uniform(0.02, 0.04), "frame_colour": int(rng.integers(5)),
        "edge": pick(rng, list(EDGES), [0.3, 0.3, 0.25, 0.15]),
        "radius": rng.uniform(0.03, 0.055), "noise": rng.uniform(0.0, 1.5),
        "red": int(rng.integers(len(REDS))), "black": int(rng.integers(len(BLACKS))),
        "green": int(rng.integers(len(GREENS))), "blue": int(rng.integers(len(BLUES))),
    }
    shapes = {}
    for s in SUITS:
        kind, polys = sh.SUIT_MAKERS[s](rng)
        d["shape_" + s] = kind
        shapes[s] = polys
    return d, shapes


def suit_colours(d):
    """Suit -> RGB colour of design ``d``."""
    red, black = REDS[d["red"]], BLACKS[d["black"]]
    if d["colours"] == 4:
        return {"c": GREENS[d["green"]], "d": BLUES[d["blue"]], "h": red, "s": black}
    return {"c": black, "d": red, "h": red, "s": black}


def glyph_mask(font_path, text, h, max_w, condense=1.0):
    """Draw ``text`` as an L mask ``h`` pixels tall (its ink box).

    Its width is the font's times ``condense``, at most ``max_w``.
    """
    font = ImageFont.truetype(font_path, 4 * h)
    img = Image.new("L", (8 * h * len(text) + 8 * h, 8 * h), 0)
    ImageDraw.Draw(img).text((2 * h, 2 * h), text, fill=255, font=font)
    img = img.crop(img.getbbox())
    w = max(1, round(img.width * h / img.height * condense))
    return img.resize((min(w, max_w), h), Image.LANCZOS)


class Deck:
    """A design laid out on a card of one size; :meth:`face` draws one card."""

    def __init__(self, seed, size, height=420):
        self.d, self.shapes = draw_design(seed)
        d = self.d
        self.H = height
        self.W = round(height * ASPECT[size])
        W, H = self.W * SS, self.H * SS
        self.w, self.h = W, H
        self.paper = PAPERS[d["paper"]]
        self.colour = suit_colours(d)
        self.font = os.path.join(FONT_ROOT, d["font"])
        self.frame_colour = FRAME_COLOURS[d["frame_colour"]]
        # border, then the index column inside it
        bi = int(d["border_inset"] * W) if d["border"] != "none" else 0
        self.border_w = {"none": 0, "line": SS * 1.5, "double": SS * 1.2, "band": SS * 5}[
            d["border"]]
        inner = bi + self.border_w * (3 if d["border"] == "double" else 1)
        self.mx = int(inner + d["margin_x"] * W)
        self.my = int(inner + d["margin_y"] * H)
        rh = int(d["rank_h"] * H)
        k = d["condense"]
        self.ranks = {r: glyph_mask(self.font, r, rh, 4 * rh, k) for r in RANKS if r != "T"}
        widest = max(m.width for m in self.ranks.values())
        self.ranks["T"] = glyph_mask(self.font, "10", rh, int(widest * d["ten_cap"]), k)
        self.suit_h = int(d["suit_h"] * H)
        self.swr = {s: sh.width_of(p) for s, p in self.shapes.items()}
        suit_w = max(self.swr.values()) * self.suit_h
        self.col_w = max(max(m.width for m in self.ranks.values()), int(suit_w))
        self.col_cx = self.mx + self.col_w / 2
        self.rank_h = rh
        self.idx_gap = int(d["index_gap"] * H)
        # the body: between the index columns, top to bottom
        self.x0 = self.mx + self.col_w + int(0.02 * W)
        self.x1 = W - self.x0
        self.y0 = inner + int(0.04 * H)
        self.y1 = H - self.y0
        # a central symbol may reach under the index columns, between the two indices
        self.cw = W - 2 * (inner + int(0.03 * W))
        self.ch = H - 2 * (self.my + rh + self.idx_gap + self.suit_h + int(0.02 * H))

    # -- the index ----------------------------------------------------------------------------
    def index_layer(self, r, s):
        """Draw the top index (left, and right in four-corner designs) on a clear layer."""
        layer = Image.new("RGBA", (self.w, self.h), (0, 0, 0, 0))
        col = self.colour[s]
        dr = ImageDraw.Draw(layer)
        m = self.ranks[r]
        centres = [self.col_cx] + ([self.w - self.col_cx] if self.d["corners"] == 4 else [])
        for cx in centres:
            x = round(cx - m.width / 2)
            layer.paste(Image.new("RGBA", m.size, (*col, 255)), (x, self.my), m)
            sy = self.my + self.rank_h + self.idx_gap + self.suit_h / 2
            sh.draw_shape(dr, self.shapes[s], cx, sy, self.suit_h, (*col, 255))
        return layer

    def index_box(self):
        """(x0, y0, x1, y1) of the top-left index at 1x."""
        b = (self.mx - 2 * SS, self.my - 2 * SS, self.mx + self.col_w + 2 * SS,
             self.my + self.rank_h + self.idx_gap + self.suit_h + 2 * SS)
        return tuple(round(v / SS) for v in b)

    # -- the body -----------------------------------------------------------------------------
    def pips(self, dr, s, n):
        """Draw the ``n`` pips of a number card (or its one central symbol)."""
        d, col = self.d, self.colour[s]
        wr = max(self.swr.values())
        aw, ah = self.x1 - self.x0, self.y1 - self.y0
        inset = d["pip_inset"] * aw
        if d["pips"] == "central":
            size = min(d["central_h"] * self.h, self.fit(wr / 0.9, 1 / 0.9))
            sh.draw_shape(dr, self.shapes[s], self.w / 2, self.h / 2, size, col)
            return
        size = d["pip_fill"] * min(d["pip_h"] * self.h, ah / 4.3, (aw - 2 * inset) / (2.6 * wr))
        xl = self.x0 + inset + size * wr / 2
        xs = (xl, self.w / 2, self.w - xl)
        yt, yb = self.y0 + size / 2, self.y1 - size / 2
        if n in (2, 3):  # the middle column's pips stand a little in from the ends
            yt, yb = yt + 0.1 * ah, yb - 0.1 * ah
        for c, row in LAYOUT[n]:
            sh.draw_shape(dr, self.shapes[s], xs[c], yt + row * (yb - yt), size, col,
                          rot180=row > 0.5)

    def fit(self, wide, tall):
        """Return the largest size of a centred symbol ``wide`` x ``tall`` sizes across.

        It keeps clear of the indices: between the indices above and below, or between the
        index columns.
        """
        return max(min(self.cw / wide, self.ch / tall),
                   min((self.x1 - self.x0) / wide, (self.y1 - self.y0) / tall))

    def ace(self, dr, rng, s):
        """Draw the ace's large, maybe ornate, pip."""
        d = self.d
        style = d["ace_spades"] if s == "s" else d["ace"]
        k = d["ace_spades_k"] if s == "s" else 1.0
        w = self.swr[s]
        wide = {"solid": w, "inlay": w, "rosette": 1.7, "framed": 1.56 * max(w, 0.8),
                "flourish": 1.24 * w + 0.5}[style]
        tall = {"solid": 1.0, "inlay": 1.0, "rosette": 1.7, "framed": 1.5, "flourish": 1.45}[style]
        size = min(d["ace_h"] * k * self.h, self.fit(wide / 0.95, tall / 0.95))
        accent = self.frame_colour if style != "solid" else self.colour[s]
        sh.ornate_ace(dr, rng, style, self.shapes[s], self.w / 2, self.h / 2, size,
                      self.colour[s], self.paper, accent)

    def court(self, img, dr, r, s):
        """Draw a court card's framed picture."""
        d = self.d
        lw = max(SS, int(self.w * 0.006))
        box = [self.x0, self.y0, self.x1, self.y1]
        fw, fh = int(box[2] - box[0] - 2 * lw), int(box[3] - box[1] - 2 * lw)
        if d["courts"] == "shared":
            rng = np.random.default_rng([d["seed"], 7])
            pic = sh.court_picture(rng, fw, fh, None, None, None, self.paper,
                                   sh.PALETTES[d["palette"]], self.font, d["court_mode"])
        else:
            rng = np.random.default_rng([d["seed"], 8, RANKS.index(r), SUITS.index(s)])
            pic = sh.court_picture(rng, fw, fh, r, self.shapes[s], self.colour[s], self.paper,
                                   sh.PALETTES[d["palette"]], self.font, d["court_mode"])
        img.paste(pic, (int(box[0] + lw), int(box[1] + lw)))
        dr.rectangle(box, outline=self.frame_colour, width=lw)

    def border(self, dr):
        """Draw the card's border (none, line, double line or band)."""
        d = self.d
        if d["border"] == "none":
            return
        bi = int(d["border_inset"] * self.w)
        rad = max(SS, int(d["radius"] * self.w) - bi)
        lw = int(self.border_w)
        dr.rounded_rectangle([bi, bi, self.w - 1 - bi, self.h - 1 - bi], radius=rad,
                             outline=self.frame_colour, width=lw)
        if d["border"] == "double":
            g = 2 * lw
            dr.rounded_rectangle([bi + g, bi + g, self.w - 1 - bi - g, self.h - 1 - bi - g],
                                 radius=max(SS, rad - g), outline=self.frame_colour, width=lw)

    # -- one card -----------------------------------------------------------------------------
    def face(self, r, s):
        """Draw the card of rank ``r``, suit ``s`` (an RGBA image at the card's size)."""
        d = self.d
        idx = RANKS.index(r) * 4 + SUITS.index(s)
        rng = np.random.default_rng([d["seed"], 1000 + idx])
        edge = EDGES[d["edge"]]
        img = Image.new("RGB", (self.w, self.h), edge or self.paper)
        alpha = Image.new("L", (self.w, self.h), 0)
        rad = int(d["radius"] * self.w)
        ImageDraw.Draw(alpha).rounded_rectangle([0, 0, self.w - 1, self.h - 1], radius=rad,
                                                fill=255)
        dr = ImageDraw.Draw(img)
        ew = SS * (1 if d["edge"] in ("light", "dark") else 2) if edge else 0
        dr.rounded_rectangle([ew, ew, self.w - 1 - ew, self.h - 1 - ew], radius=max(1, rad - ew),
                             fill=self.paper)
        self.border(dr)
        if r in "JQK":
            self.court(img, dr, r, s)
        elif r == "A":
            self.ace(dr, rng, s)
        else:
            if d["pip_frame"]:
                dr.rectangle([self.x0, self.y0, self.x1, self.y1], outline=self.frame_colour,
                             width=SS)
            self.pips(dr, s, 10 if r == "T" else int(r))
        layer = self.index_layer(r, s)
        rgba = img.convert("RGBA")
        rgba.alpha_composite(layer)
        rgba.alpha_composite(layer.rotate(180))
        small = rgba.convert("RGB").resize((self.W, self.H), Image.LANCZOS)
        a = np.asarray(alpha.resize((self.W, self.H), Image.LANCZOS)).copy()
        rgb = np.asarray(small).astype(np.float32)
        if d["noise"] > 0:  # paper grain
            rgb += rng.normal(0.0, d["noise"], rgb.shape[:2])[..., None]
        rgb = np.clip(np.round(rgb), 0, 255).astype(np.uint8)
        rgb[a == 0] = 0
        return Image.fromarray(np.dstack([rgb, a]), "RGBA")


def versions():
    """Versions of what draws the pixels (recorded in design.json)."""
    import PIL
    from PIL import features
    return {"pillow": PIL.__version__, "freetype": features.version("freetype2"),
            "numpy": np.__version__}


def write(seed, size, out, height=420):
    """Write the 52 faces and design.json of ``seed`` at ``size`` into ``out``."""
    deck = Deck(seed, size, height)
    missing = [f for f, _ in FONTS if not os.path.exists(os.path.join(FONT_ROOT, f))]
    if deck.d["font"] in missing:
        raise SystemExit(f"font {deck.d['font']} missing: run synth.sh (it installs the fonts)")
    os.makedirs(out, exist_ok=True)
    for r in RANKS:
        for s in SUITS:
            deck.face(r, s).save(os.path.join(out, r + s + ".png"))
    meta = dict(deck.d, size=size, width=deck.W, height=deck.H, generator="synth.py",
                versions=versions())
    with open(os.path.join(out, "design.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    return deck


def main(argv=None):
    """Command line: write, then validate."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--size", choices=sorted(ASPECT), required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--height", type=int, default=420)
    ap.add_argument("--no-check", action="store_true")
    a = ap.parse_args(argv)
    deck = write(a.seed, a.size, a.out, a.height)
    if a.no_check:
        return 0
    import synth_check
    errs, info = synth_check.validate(a.out, deck)
    name = os.path.basename(a.out.rstrip("/"))
    print(f"{'OK' if not errs else 'FAIL':4} {name}: {info}")
    for e in errs[:20]:
        print("     ", e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
