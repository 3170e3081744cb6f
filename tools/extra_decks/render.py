#!/usr/bin/env python3
"""Render other deck designs (for measuring the recogniser on designs it was not tuned on).

Needs: root (apt-get), npm, and the tools this script installs:
  apt-get install -y librsvg2-bin inkscape      (rsvg-convert, inkscape 1.2)
  python3 -m venv /tmp/deckvenv && /tmp/deckvenv/bin/pip install cairosvg pillow numpy opencv-python-headless
Run:  /tmp/deckvenv/bin/python tools/extra_decks/render.py [design ...]
then: /tmp/deckvenv/bin/python tools/extra_decks/check.py var/decks/*

Sources are fetched into $DECKS_BUILD, default /tmp/deckbuild (npm pack cardsJS and
@heruka_urgyen/react-playing-cards; apt-get download kdegames-card-data-kf5 gnome-cards-data;
dpkg-deb -x).  Arguments: design names, or a group (fresh-17); none renders every design.  Each card is rendered
alone (rsvg-convert for single-card SVGs; inkscape --export-id ... --export-id-only
for the multi-card SVGs) at twice the target height, downscaled with Lanczos to one
size per design (height 420, width clamped to 280-320 keeping the aspect ratio),
then the inside of the card outline is composited over opaque white (alpha 255) and
everything outside stays transparent.
"""
import glob
import gzip
import os
import re
import shutil
import subprocess
import sys

import cv2
import numpy as np
from PIL import Image

#: Where the design folders go: $DECKS_OUT, else var/decks in the repository.
OUT = os.environ.get("DECKS_OUT") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "var", "decks")
BUILD = os.environ.get("DECKS_BUILD") or "/tmp/deckbuild"
RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUITNAME = {"c": "club", "d": "diamond", "h": "heart", "s": "spade"}
KDE_RANK = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}
KDE_RANK.update({str(i): str(i) for i in range(2, 10)})


def kde_id(r, s):
    return f"{KDE_RANK[r]}_{SUITNAME[s]}"


def gnome_id(r, s):
    return f"{SUITNAME[s]}_{KDE_RANK[r]}"


KDE = f"{BUILD}/kde/usr/share/carddecks"
GNOME = f"{BUILD}/gnome/usr/share/aisleriot/cards"
# design name -> (kind, source file, id function)
DESIGNS = {
    "cardsjs": ("files", f"{BUILD}/package/cards", None),
    "kde-dondorf": ("multi", f"{KDE}/svg-dondorf/dondorf.svgz", kde_id),
    "kde-paris": ("multi", f"{KDE}/svg-gm-paris/paris.svgz", kde_id),
    "kde-standard": ("multi", f"{KDE}/svg-standard/standard.svgz", kde_id),
    "kde-nicu-white": ("multi", f"{KDE}/svg-nicu-white/white.svgz", kde_id),
    "kde-jolly-royal": ("multi", f"{KDE}/svg-jolly-royal/jolly-royal.svgz", kde_id),
    "kde-oxygen-white": ("multi", f"{KDE}/svg-oxygen-white/oxygen-white.svgz", kde_id),
    "gnome-anglo": ("multi", f"{GNOME}/anglo.svgz", gnome_id),
    "gnome-neoclassical": ("multi", f"{GNOME}/neoclassical.svgz", gnome_id),
}


PKG = {
    "cardsjs": ("npm cardsJS 1.1.1 (package license MIT; the card faces in package/cards are "
                "Chris Aguilar's 'Vectorized Playing Cards 1.3', LGPL-3.0-or-later per package/cards/readme.txt)",
                "cd /tmp/deckbuild && npm pack cardsJS@1.1.1 && tar xzf cardsJS-1.1.1.tgz\n"
                "for each card: rsvg-convert -h 840 package/cards/<10|2..9|J|Q|K|A><C|D|H|S>.svg -o raw.png"),
    "kde": ("Debian kdegames-card-data-kf5 4:22.12.3-1 (source libkdegames), file {src}; license per "
            "/usr/share/doc/kdegames-card-data-kf5/copyright: {lic}",
            "cd /tmp/deckbuild && apt-get download kdegames-card-data-kf5 && dpkg-deb -x kdegames-card-data-kf5_*.deb kde\n"
            "zcat {src} > deck.svg\n"
            "inkscape --export-id='<52 ids, e.g. 1_heart;10_club;king_spade>' --export-id-only --export-type=png --export-height=840 deck.svg"),
    "gnome": ("Debian gnome-cards-data 1:3.22.23-1 (source aisleriot), file {src}; license per "
              "/usr/share/doc/gnome-cards-data/copyright: GPL-3+ (Files: *)",
              "cd /tmp/deckbuild && apt-get download gnome-cards-data && dpkg-deb -x gnome-cards-data_*.deb gnome\n"
              "zcat {src} > deck.svg\n"
              "inkscape --export-id='<52 ids, e.g. heart_1;club_10;spade_king>' --export-id-only --export-type=png --export-height=840 deck.svg"),
}
PKG["kennard"] = (
    "npm @heruka_urgyen/react-playing-cards 0.5.0 (package license MIT; the card faces in "
    "package/src/images are Adrian Kennard's SVG playing cards, CC0 per package/README.md), "
    "folder {src}",
    "mkdir -p /tmp/deckbuild/kennard && cd /tmp/deckbuild/kennard && npm pack "
    "@heruka_urgyen/react-playing-cards@0.5.0 && tar xzf heruka_urgyen-react-playing-cards-0.5.0.tgz\n"
    "for each card: rsvg-convert -h 840 {src}/<2..9|T|J|Q|K|A><C|D|H|S>.svg -o raw.png")
KDE_LIC = {"kde-standard": "GPL-2+ (carddecks/svg-standard/*)",
           "kde-xskat-french": "GPL-2+ (carddecks/svg-xskat-french/*)",
           "kde-tigullio-international": "LGPL-2+ (carddecks/svg-tigullio-international/*)"}


def write_source(name, size):
    kind, src, _ = DESIGNS[name]
    key = "cardsjs" if name == "cardsjs" else name.split("-")[0]
    pkg, cmds = PKG[key]
    pkg = pkg.format(src=src.replace(f"{BUILD}/kde", "").replace(f"{BUILD}/gnome", ""),
                     lic=KDE_LIC.get(name, "GPL-2+ (falls under 'Files: *')"))
    cmds = cmds.format(src=src)
    if kind == "defs":
        w, h = DEFS_CELL[name]
        cmds = cmds.rsplit("\n", 1)[0] + (
            f"\nper card (its drawing is inside <defs>): a copy of deck.svg whose body is only "
            f"<use xlink:href=\"#<id>\"/> in a {w}x{h} viewBox, rsvg-convert -h 840 card.svg")
    with open(os.path.join(OUT, name, "SOURCE.txt"), "w") as f:
        f.write(f"design: {name}\nsource: {pkg}\n\ncommands (run by tools/extra_decks/render.py, "
                f"wrapper tools/extra_decks/render.sh):\n{cmds}\n"
                f"then per card (render.py): drop shadow/glow outside the card outline and crop to it, "
                f"Lanczos-resize to {size[0]}x{size[1]}, composite the inside of the outline over opaque white; "
                f"cut rounded corners only if the corner pixels were not already transparent.\n"
                f"full rebuild: sh tools/extra_decks/render.sh {name}\n")


def sh(cmd, **kw):
    print("+", cmd if isinstance(cmd, str) else " ".join(cmd), flush=True)
    return subprocess.run(cmd, shell=isinstance(cmd, str), check=True, **kw)


def fetch():
    os.makedirs(BUILD, exist_ok=True)
    if not os.path.isdir(f"{BUILD}/package/cards"):
        sh(f"cd {BUILD} && npm pack cardsJS@1.1.1 && tar xzf cardsJS-1.1.1.tgz")
    for pkg, d in [("kdegames-card-data-kf5", "kde"), ("gnome-cards-data", "gnome")]:
        if not os.path.isdir(f"{BUILD}/{d}/usr"):
            sh(f"cd {BUILD} && apt-get download {pkg} && dpkg-deb -x {pkg}_*.deb {d}")
    if not os.path.isdir(f"{BUILD}/kennard/package/src/images"):
        sh(f"mkdir -p {BUILD}/kennard && cd {BUILD}/kennard && npm pack "
           "@heruka_urgyen/react-playing-cards@0.5.0 && "
           "tar xzf heruka_urgyen-react-playing-cards-0.5.0.tgz")
    if not (shutil.which("rsvg-convert") and shutil.which("inkscape")):
        sh("apt-get update -q && apt-get install -y -q --no-install-recommends librsvg2-bin inkscape")


def target_size(w, h):
    """height 420, width clamped to 280-320 keeping the aspect ratio."""
    ar = w / h
    W, H = 420 * ar, 420.0
    if W < 280:
        W, H = 280.0, 280 / ar
    elif W > 320:
        W, H = 320.0, 320 / ar
    return int(round(W)), int(round(H))


def outline(alpha, thr):
    """Mask of the card: solid pixels (alpha >= thr) plus every hole inside them."""
    h, w = alpha.shape
    solid = (alpha >= thr).astype(np.uint8)
    flood = np.pad(1 - solid, 1, constant_values=1).astype(np.uint8)
    cv2.floodFill(flood, np.zeros((h + 4, w + 4), np.uint8), (0, 0), 2)
    return flood[1:-1, 1:-1] != 2


def trim(im):
    """At render resolution: drop drop-shadows / glow outside the card outline, crop to it."""
    a = np.array(im.convert("RGBA"))
    inside = outline(a[..., 3], 200)
    # keep one pixel of anti-aliased edge around the outline
    keep = cv2.dilate(inside.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    a[~keep] = 0
    ys, xs = np.nonzero(inside)
    a = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    return Image.fromarray(a, "RGBA")


def finish(im, size):
    """Resize, make the inside of the card opaque white-backed, outside transparent."""
    im = im.convert("RGBA").resize(size, Image.LANCZOS)
    a = np.asarray(im).astype(np.float32)
    h, w = a.shape[:2]
    alpha = a[..., 3] / 255.0
    inside = outline(a[..., 3], 128)
    rgb = a[..., :3] * alpha[..., None] + 255.0 * (1 - alpha[..., None])
    out = a.copy()
    out[inside, :3] = rgb[inside]
    out[inside, 3] = 255
    # square-cornered or bleeding designs: cut a rounded corner so the corner pixels are clear
    if any(out[y, x, 3] > 0 for y, x in [(0, 0), (0, w - 1), (h - 1, 0), (h - 1, w - 1)]):
        r = max(6, int(0.045 * w))
        m = np.zeros((h * 4, w * 4), np.uint8)
        cv2.rectangle(m, (4 * r, 0), (4 * (w - r), 4 * h - 1), 255, -1)
        cv2.rectangle(m, (0, 4 * r), (4 * w - 1, 4 * (h - r)), 255, -1)
        for cx, cy in [(r, r), (w - r, r), (r, h - r), (w - r, h - r)]:
            cv2.circle(m, (4 * cx, 4 * cy), 4 * r, 255, -1)
        m = cv2.resize(m, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
        out[..., 3] *= m
        for y, x in [(0, 0), (0, w - 1), (h - 1, 0), (h - 1, w - 1)]:
            out[y, x, 3] = 0
    out[out[..., 3] == 0, :3] = 0
    return Image.fromarray(np.clip(out + 0.5, 0, 255).astype(np.uint8), "RGBA")


def cardsjs_file(r, s):
    return ("10" if r == "T" else r) + s.upper() + ".svg"


def kennard_file(r, s):
    return r + s.upper() + ".svg"


def render_files(name, src, fnf=None):
    raw = f"{BUILD}/raw/{name}"
    os.makedirs(raw, exist_ok=True)
    files = {}
    for r in RANKS:
        for s in SUITS:
            fn = (fnf or cardsjs_file)(r, s)
            p = f"{raw}/{r}{s}.png"
            sh(["rsvg-convert", "-h", "840", os.path.join(src, fn), "-o", p])
            files[r + s] = p
    return files


#: Multi-card SVGs whose cards are all inside <defs> (inkscape exports an empty image for such
#: an id): each card is drawn alone by one <use> in a copy of the file, at this cell size.
DEFS_CELL = {"kde-tigullio-international": (58, 88)}


def render_defs(name, src, idf):
    raw = f"{BUILD}/raw/{name}"
    shutil.rmtree(raw, ignore_errors=True)
    os.makedirs(raw)
    data = open(src, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    text = data.decode("utf-8")
    w, h = DEFS_CELL[name]
    head, sep, _ = text.rpartition("</defs>")
    assert sep, "no </defs>"
    start = head.index("<svg")
    end = head.index(">", start)
    # the root element keeps its namespaces; its size becomes one card cell
    root = re.sub(r'\s(width|height|viewBox)="[^"]*"', "", head[start:end])
    root += f' width="{w}" height="{h}" viewBox="0 0 {w} {h}">'
    files = {}
    for r in RANKS:
        for s in SUITS:
            svg = f"{raw}/{idf(r, s)}.svg"
            with open(svg, "w", encoding="utf-8") as f:
                f.write(head[:start] + root + head[end + 1:] + sep
                        + f'<use xlink:href="#{idf(r, s)}" />\n</svg>\n')
            p = f"{raw}/{r}{s}.png"
            sh(["rsvg-convert", "-h", "840", svg, "-o", p])
            files[r + s] = p
    return files


def render_multi(name, src, idf):
    raw = f"{BUILD}/raw/{name}"
    shutil.rmtree(raw, ignore_errors=True)
    os.makedirs(raw)
    svg = f"{raw}/deck.svg"
    data = open(src, "rb").read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    open(svg, "wb").write(data)
    ids = [idf(r, s) for r in RANKS for s in SUITS]
    sh(["inkscape", "--export-id=" + ";".join(ids), "--export-id-only", "--export-type=png",
        "--export-height=840", svg], stderr=subprocess.DEVNULL)
    files = {}
    for r in RANKS:
        for s in SUITS:
            p = f"{raw}/deck_{idf(r, s)}.png"
            assert os.path.exists(p), p
            files[r + s] = p
    return files


def build(name):
    kind, src, idf = DESIGNS[name]
    if kind == "files":
        files = render_files(name, src, idf)
    elif kind == "defs":
        files = render_defs(name, src, idf)
    else:
        files = render_multi(name, src, idf)
    ims = {card: trim(Image.open(p)) for card, p in files.items()}
    sizes = [im.size for im in ims.values()]
    ws = sorted(w / h for w, h in sizes)
    size = target_size(ws[len(ws) // 2], 1.0)
    d = os.path.join(OUT, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for card, im in ims.items():
        finish(im, size).save(os.path.join(d, card + ".png"))
    write_source(name, size)
    print(f"{name}: 52 cards at {size}", flush=True)


#: Held out: never used to choose a threshold; measured once (benchmark run 8).
HELD_OUT = {
    "kde-nicu-ornamental": ("multi", f"{KDE}/svg-nicu-ornamental/ornamental.svgz", kde_id),
    "kde-ancient-egyptians": ("multi", f"{KDE}/svg-ancient-egyptians/Ancient_Egyptians.svgz", kde_id),
    "gnome-tango": ("multi", f"{GNOME}/tango.svgz", gnome_id),
    "gnome-plastic": ("multi", f"{GNOME}/plastic.svgz", gnome_id),
}
DESIGNS.update(HELD_OUT)
#: Fresh for the card-size work: never looked at before its measurement (benchmark run 10).
FRESH = {
    "kde-oxygen-air": ("multi", f"{KDE}/svg-oxygen-air/oxygen-air.svgz", kde_id),
    "gnome-simplistic": ("multi", f"{GNOME}/simplistic.svgz", gnome_id),
    "gnome-bellot": ("multi", f"{GNOME}/bellot.svgz", gnome_id),
    "gnome-guyenne-classic": ("multi", f"{GNOME}/guyenne-classic.svgz", gnome_id),
}
DESIGNS.update(FRESH)
#: Fresh for the confident-wrong and accuracy work: never looked at before its measurement
#: (benchmark run 11); the run-10 designs above were used to set its thresholds.
FRESH_11 = {
    "kde-oxygen": ("multi", f"{KDE}/svg-oxygen/oxygen.svgz", kde_id),
    "gnome-anglo-poker": ("multi", f"{GNOME}/anglo_poker.svgz", gnome_id),
    "gnome-gnomangelo": ("multi", f"{GNOME}/gnomangelo.svgz", gnome_id),
    "gnome-atlasnye": ("multi", f"{GNOME}/atlasnye.svgz", gnome_id),
}
DESIGNS.update(FRESH_11)
#: Fresh for the corner-index reader: never looked at before its measurement (benchmark run 12);
#: the run-11 designs above were used while building it.
FRESH_12 = {
    "gnome-anglo-modern": ("multi", f"{GNOME}/anglo_modern.svgz", gnome_id),
    "kde-konqi-modern": ("multi", f"{KDE}/svg-konqi-modern/konqi.svgz", kde_id),
    "gnome-slavic-costumes": ("multi", f"{GNOME}/slavic_costumes.svgz", gnome_id),
}
DESIGNS.update(FRESH_12)
#: Fresh for the printed-felt, read-rate and CPU work: never looked at before its measurement
#: (benchmark run 13); the run-12 designs above were used while building it.
FRESH_13 = {
    "kde-future": ("multi", f"{KDE}/svg-future/future.svgz", kde_id),
    "gnome-ancient-french": ("multi", f"{GNOME}/ancient_french.svgz", gnome_id),
    "gnome-swiss-xvii": ("multi", f"{GNOME}/swiss-xvii.svgz", gnome_id),
    "gnome-tigullio": ("multi", f"{GNOME}/tigullio.svgz", gnome_id),
}
DESIGNS.update(FRESH_13)
#: Fresh for the suit-twin work: never looked at before its measurement (benchmark run 15);
#: the run-13 designs above were used while building it.
FRESH_14 = {
    "gnome-berlin": ("multi", f"{GNOME}/berlin.svgz", gnome_id),
    "gnome-lattmann": ("multi", f"{GNOME}/lattmann.svgz", gnome_id),
    "gnome-rheinland": ("multi", f"{GNOME}/rheinland.svgz", gnome_id),
    "gnome-orell": ("multi", f"{GNOME}/orell.svgz", gnome_id),
    "kde-penguins": ("multi", f"{KDE}/svg-penguins/penguins.svgz", kde_id),
}
DESIGNS.update(FRESH_14)
#: Fresh for the locator work: never looked at before its measurement (benchmark run 17); the
#: run-15 designs above are tuning designs since. gnome-ornamental and gnome-paris come from the
#: same art as kde-nicu-ornamental and kde-paris (other drawings, other sizes).
FRESH_15 = {
    "gnome-tango-nuevo": ("multi", f"{GNOME}/tango_nuevo.svgz", gnome_id),
    "gnome-ornamental": ("multi", f"{GNOME}/ornamental.svgz", gnome_id),
    "gnome-paris": ("multi", f"{GNOME}/paris.svgz", gnome_id),
}
DESIGNS.update(FRESH_15)
#: Fresh for the glare and first-comparison-cost work (benchmark run 19), chosen at the same
#: time as FRESH_15 by another branch: gnome-dondorf, and FRESH_15's three designs again (each
#: branch measured them without tuning on them or seeing the other's results).
FRESH_16 = {
    "gnome-paris": ("multi", f"{GNOME}/paris.svgz", gnome_id),
    "gnome-dondorf": ("multi", f"{GNOME}/dondorf.svgz", gnome_id),
    "gnome-ornamental": ("multi", f"{GNOME}/ornamental.svgz", gnome_id),
    "gnome-tango-nuevo": ("multi", f"{GNOME}/tango_nuevo.svgz", gnome_id),
}
DESIGNS.update(FRESH_16)

#: Measured unseen in benchmark run 30 (tuning designs since; every design above is a
#: tuning design now). kennard-* are unseen editions of the shipped kennard design (from
#: another npm package): -4c four colours (green clubs, blue diamonds), -bf big corner indices
#: with small pips and court pictures (a casino layout); gnome-*-4c are the four-colour
#: card-room editions of two tuning designs; gnome-atlasnye-skat is a four-colour skat edition
#: (B/D/K indices); kde-xskat-french is new art (B/D/K indices); *-bitmap are raster editions
#: of two tuning designs; kde-tigullio-international is an older drawing of gnome-tigullio's
#: art. Left out: the two-colour kennard (the shipped design itself) and gnome-tarocco (280 x
#: 467, narrower than bridge cards, as gnome-orell).
KENNARD = f"{BUILD}/kennard/package/src/images"
FRESH_17 = {
    "kennard-4c": ("files", f"{KENNARD}/4color", kennard_file),
    "kennard-2c-bf": ("files", f"{KENNARD}/2color-bf", kennard_file),
    "kennard-4c-bf": ("files", f"{KENNARD}/4color-bf", kennard_file),
    "kde-xskat-french": ("multi", f"{KDE}/svg-xskat-french/french.svgz", kde_id),
    "kde-tigullio-international": (
        "defs", f"{KDE}/svg-tigullio-international/tigullio-international.svgz", kde_id),
    "gnome-anglo-modern-4c": ("multi", f"{GNOME}/anglo_modern_4_color.svgz", gnome_id),
    "gnome-neoclassical-4c": ("multi", f"{GNOME}/neoclassical_4_color.svgz", gnome_id),
    "gnome-anglo-bitmap": ("multi", f"{GNOME}/anglo_bitmap.svgz", gnome_id),
    "gnome-gnomangelo-bitmap": ("multi", f"{GNOME}/gnomangelo_bitmap.svgz", gnome_id),
    "gnome-atlasnye-skat": ("multi", f"{GNOME}/atlasnye_skat.svgz", gnome_id),
}
DESIGNS.update(FRESH_17)
#: FRESH_17 designs that also get a bridge-size variant (bridge.py) when rendered.
#: (kde-xskat-french and the two bitmap editions are about 57:89 as shipped.)
FRESH_17_BRIDGE = ["kennard-4c", "kennard-2c-bf", "gnome-neoclassical-4c", "gnome-anglo-modern-4c",
                   "gnome-atlasnye-skat", "kde-tigullio-international"]
#: Names that stand for a group of designs on the command line.
GROUPS = {"fresh-17": list(FRESH_17)}


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bridge import bridge

    fetch()
    failed = []
    names = [d for n in sys.argv[1:] for d in GROUPS.get(n, [n])] or list(DESIGNS)
    for n in names:
        try:
            build(n)
            if n in FRESH_17_BRIDGE:
                bridge(os.path.join(OUT, n))
        except (ValueError, AssertionError, subprocess.CalledProcessError) as exc:
            print(f"{n}: not rendered ({exc!r})", flush=True)
            failed.append(n)
    sys.exit(1 if failed else 0)
