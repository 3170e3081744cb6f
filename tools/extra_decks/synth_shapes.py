"""Vector shapes for synth.py: suit symbols, ace ornaments and court pictures.

A shape is a list of polygons in unit coordinates: centred on (0, 0), 1 tall (y grows downwards,
as in images), drawn filled; overlapping polygons of one colour draw their union. Every draw takes
its numbers from a numpy Generator, so a design is the same for the same seed.
"""
import math

import numpy as np
from PIL import Image, ImageDraw, ImageFont

Poly = list[tuple[float, float]]


# -- curves -----------------------------------------------------------------------------------

def bezier(p0, p1, p2, p3, n=40):
    """Points of the cubic Bézier p0..p3 (p0 included, p3 not)."""
    t = np.linspace(0.0, 1.0, n, endpoint=False)[:, None]
    p = [np.asarray(q, float) for q in (p0, p1, p2, p3)]
    pts = ((1 - t) ** 3) * p[0] + 3 * ((1 - t) ** 2) * t * p[1] + 3 * (1 - t) * t * t * p[2] \
        + (t ** 3) * p[3]
    return [(float(x), float(y)) for x, y in pts]


def circle(cx, cy, r, n=72):
    """Return a circle as a polygon."""
    return [(cx + r * math.cos(a), cy + r * math.sin(a))
            for a in np.linspace(0, 2 * math.pi, n, endpoint=False)]


def mirror_x(half: Poly) -> Poly:
    """Close an outline from its left half (listed from the top of the axis to the bottom)."""
    return half + [(-x, y) for x, y in reversed(half)]


def normalise(polys: list[Poly]) -> list[Poly]:
    """Scale and shift so the union's bounding box is 1 tall and centred on (0, 0)."""
    xs = [x for p in polys for x, _ in p]
    ys = [y for p in polys for _, y in p]
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    s = 1.0 / (max(ys) - min(ys))
    return [[((x - cx) * s, (y - cy) * s) for x, y in p] for p in polys]


def width_of(polys: list[Poly]) -> float:
    """Width of a shape's bounding box."""
    xs = [x for p in polys for x, _ in p]
    return max(xs) - min(xs)


# -- suit symbols -----------------------------------------------------------------------------

def heart(rng) -> tuple[str, list[Poly]]:
    """Draw a heart: the textbook curve, two round lobes, or Bézier lobes."""
    kind = str(rng.choice(["curve", "lobes", "bezier"]))
    if kind == "curve":
        k = rng.uniform(0.85, 1.15)  # wider or narrower than the textbook curve
        t = np.linspace(0, 2 * math.pi, 160, endpoint=False)
        x = 16 * np.sin(t) ** 3 * k
        y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
        return kind, normalise([list(zip(x.tolist(), y.tolist(), strict=True))])
    if kind == "lobes":
        r = rng.uniform(0.24, 0.29)
        d = r * rng.uniform(0.75, 0.95)
        yc = -0.5 + r
        tip = (0.0, 0.5)
        polys = [circle(-d, yc, r), circle(d, yc, r)]
        tl = _tangent(tip, (-d, yc), r, outer_sign=-1)
        tr = _tangent(tip, (d, yc), r, outer_sign=1)
        polys.append([tl, (-d, yc), (0.0, yc), (d, yc), tr, tip])
        return kind, normalise(polys)
    w = rng.uniform(0.46, 0.56)
    notch = rng.uniform(0.10, 0.18)
    sh = rng.uniform(-0.22, -0.05)  # the shoulder: widest point
    tipc = rng.uniform(0.05, 0.25)  # how pointed the tip is
    half = (bezier((0, -0.5 + notch), (-0.04, -0.56), (-w, -0.62), (-w, sh))
            + bezier((-w, sh), (-w, sh + 0.25), (-tipc, 0.5 - tipc), (0, 0.5)))
    return kind, normalise([mirror_x(half)])


def _tangent(b, c, r, outer_sign):
    bx, by = b
    vx, vy = c[0] - bx, c[1] - by
    dist = math.hypot(vx, vy)
    a = math.asin(min(1.0, r / dist))
    ln = math.sqrt(max(dist * dist - r * r, 0.0))
    best = None
    for s in (-1, 1):
        ca, sa = math.cos(s * a), math.sin(s * a)
        dx, dy = (vx * ca - vy * sa) / dist, (vx * sa + vy * ca) / dist
        p = (bx + dx * ln, by + dy * ln)
        if best is None or p[0] * outer_sign > best[0] * outer_sign:
            best = p
    return best


def diamond(rng) -> tuple[str, list[Poly]]:
    """Draw a diamond with straight, concave or convex sides."""
    kind = str(rng.choice(["straight", "concave", "convex"]))
    a = rng.uniform(0.32, 0.40)
    if kind == "straight":
        return kind, normalise([[(0, -0.5), (a, 0), (0, 0.5), (-a, 0)]])
    k = rng.uniform(0.55, 0.80) if kind == "concave" else rng.uniform(1.08, 1.2)
    if kind == "concave":
        a = rng.uniform(0.36, 0.44)
    corners = [(0, -0.5), (a, 0), (0, 0.5), (-a, 0)]
    pts: Poly = []
    for i in range(4):
        p, q = corners[i], corners[(i + 1) % 4]
        m = ((p[0] + q[0]) / 2 * k, (p[1] + q[1]) / 2 * k)
        c1 = (p[0] + (m[0] - p[0]) * 0.9, p[1] + (m[1] - p[1]) * 0.9)
        c2 = (q[0] + (m[0] - q[0]) * 0.9, q[1] + (m[1] - q[1]) * 0.9)
        pts += bezier(p, c1, c2, q, 24)
    return kind, normalise([pts])


def _stem(rng, style, top_y, width):
    """Draw a stem below a club or spade: from top_y (inside the body) to y = 0.5."""
    if style == "flare":
        half = bezier((0, top_y), (-0.02, 0.2), (-width * 0.3, 0.45), (-width, 0.5), 20)
        return [half + [(-width, 0.5), (width, 0.5)] + [(-x, y) for x, y in reversed(half)]]
    if style == "triangle":
        return [[(-0.03, top_y), (-width, 0.5), (width, 0.5), (0.03, top_y)]]
    # a narrow stem on a foot
    s = width * 0.28
    return [[(-s, top_y), (-s, 0.42), (-width, 0.42), (-width, 0.5), (width, 0.5), (width, 0.42),
             (s, 0.42), (s, top_y)]]


def club(rng) -> tuple[str, list[Poly]]:
    """Draw a club: three round lobes on a flared, straight or footed stem."""
    kind = str(rng.choice(["flare", "triangle", "foot"]))
    r = rng.uniform(0.19, 0.235)
    spread = rng.uniform(0.85, 1.05)  # how far the side lobes stand from the top one
    top = (0.0, -0.5 + r)
    dy = r * spread * 1.55
    side_y = top[1] + dy
    side_x = r * spread * 1.12
    polys = [circle(*top, r), circle(-side_x, side_y, r), circle(side_x, side_y, r),
             circle(0.0, side_y - 0.2 * r, r * 0.62)]
    polys += _stem(rng, kind, side_y, rng.uniform(0.14, 0.22))
    return kind, normalise(polys)


def spade(rng) -> tuple[str, list[Poly]]:
    """Draw a spade: an upturned heart (three kinds) on a stem (three kinds)."""
    kind = str(rng.choice(["curve", "bezier", "lobes"]))
    stem_style = str(rng.choice(["flare", "triangle", "foot"]))
    body_h = rng.uniform(0.74, 0.82)  # the inverted heart's share of the height
    if kind == "lobes":
        _, hp = heart(_Fixed("lobes", rng))
    elif kind == "curve":
        _, hp = heart(_Fixed("curve", rng))
    else:
        w = rng.uniform(0.46, 0.55)
        sh = rng.uniform(-0.22, -0.05)
        half = (bezier((0, -0.5 + rng.uniform(0.08, 0.14)), (-0.06, -0.5), (-w, -0.55), (-w, sh))
                + bezier((-w, sh), (-w, sh + 0.3), (-0.05, 0.42), (0, 0.5)))
        hp = normalise([mirror_x(half)])
    body = [[(x * body_h, -0.5 + (y * -1 + 0.5) * body_h) for x, y in p] for p in hp]
    top_y = -0.5 + body_h * 0.85
    polys = body + _stem(rng, stem_style, top_y, rng.uniform(0.14, 0.22))
    return f"{kind}+{stem_style}", normalise(polys)


class _Fixed:
    """A Generator stand-in whose first choice() is fixed (the rest is the real generator)."""

    def __init__(self, first, rng):
        self.first, self.rng = first, rng

    def choice(self, seq):
        v, self.first = self.first, None
        return v if v is not None else self.rng.choice(seq)

    def uniform(self, a, b):
        return self.rng.uniform(a, b)


SUIT_MAKERS = {"c": club, "d": diamond, "h": heart, "s": spade}


# -- drawing ----------------------------------------------------------------------------------

def draw_shape(draw, polys, cx, cy, size, fill, rot180=False, sx=1.0):
    """Draw ``polys`` (unit shape) centred at (cx, cy), ``size`` pixels tall."""
    k = -1.0 if rot180 else 1.0
    for p in polys:
        draw.polygon([(cx + k * size * sx * x, cy + k * size * y) for x, y in p], fill=fill)


def ornate_ace(draw, rng, style, polys, cx, cy, size, colour, paper, accent):
    """Draw the ace's large pip with its ornament; ``style`` one of ACE_STYLES."""
    w = width_of(polys)
    if style == "rosette":
        rr = size * 0.7
        lw = max(2, int(size * 0.025))
        draw.ellipse([cx - rr, cy - rr, cx + rr, cy + rr], outline=accent, width=lw)
        n = int(rng.integers(8, 17))
        for i in range(n):
            a = 2 * math.pi * i / n
            px, py = cx + rr * 1.12 * math.cos(a), cy + rr * 1.12 * math.sin(a)
            q = size * 0.05
            draw.ellipse([px - q, py - q, px + q, py + q], fill=accent)
    elif style == "framed":
        fx, fy = size * max(w, 0.8) * 0.78, size * 0.72
        draw.rounded_rectangle([cx - fx, cy - fy, cx + fx, cy + fy], radius=size * 0.15,
                               fill=_tint(accent, paper, 0.85), outline=accent,
                               width=max(2, int(size * 0.02)))
    elif style == "flourish":
        lw = max(2, int(size * 0.03))
        for sgn in (-1, 1):
            bx = cx + sgn * size * w * 0.62
            for k in range(2):
                r = size * (0.22 - 0.07 * k)
                draw.arc([bx - r, cy - r - size * 0.25, bx + r, cy + r - size * 0.25],
                         90 - sgn * 90, 270 - sgn * 90, fill=accent, width=lw)
                draw.arc([bx - r, cy - r + size * 0.25, bx + r, cy + r + size * 0.25],
                         -90 - sgn * 90, 90 - sgn * 90, fill=accent, width=lw)
        for sgn in (-1, 1):
            q = size * 0.07
            y = cy + sgn * size * 0.66
            draw.polygon([(cx, y - q), (cx + q * 0.7, y), (cx, y + q), (cx - q * 0.7, y)],
                         fill=accent)
    draw_shape(draw, polys, cx, cy, size, colour)
    if style in ("inlay", "rosette", "framed"):
        draw_shape(draw, polys, cx, cy, size * 0.8, paper if style != "framed"
                   else _tint(accent, paper, 0.85))
        draw_shape(draw, polys, cx, cy, size * 0.62, colour)
    if style == "inlay":
        draw_shape(draw, polys, cx, cy, size * 0.3, paper)


ACE_STYLES = ("solid", "inlay", "rosette", "framed", "flourish")


def _tint(c, paper, k):
    return tuple(round(a * (1 - k) + b * k) for a, b in zip(c, paper, strict=True))


# -- court pictures ---------------------------------------------------------------------------

PALETTES = [
    [(200, 30, 40), (30, 60, 160), (235, 190, 40), (20, 20, 20)],     # traditional
    [(180, 20, 60), (20, 110, 150), (240, 160, 30), (40, 30, 60)],
    [(150, 40, 140), (230, 120, 30), (40, 90, 190), (30, 30, 30)],
    [(190, 50, 30), (60, 60, 60), (210, 170, 90), (90, 30, 110)],
    [(30, 80, 170), (220, 60, 60), (250, 210, 80), (10, 10, 40)],
]


def _pattern(draw, rng, box, colours, paper):
    """Fill ``box`` with one of a few textile patterns."""
    x0, y0, x1, y1 = box
    style = str(rng.choice(["plain", "stripes", "checks", "dots", "hatch", "zigzag"]))
    base = colours[int(rng.integers(len(colours)))]
    other = colours[int(rng.integers(len(colours)))]
    if other == base:
        other = _tint(base, paper, 0.6)
    draw.rectangle(box, fill=base)
    step = max(6, int((x1 - x0) * rng.uniform(0.06, 0.14)))
    if style == "stripes":
        for x in range(int(x0), int(x1), step * 2):
            draw.rectangle([x, y0, x + step, y1], fill=other)
    elif style == "checks":
        for i, x in enumerate(range(int(x0), int(x1), step)):
            for j, y in enumerate(range(int(y0), int(y1), step)):
                if (i + j) % 2:
                    draw.rectangle([x, y, x + step, y + step], fill=other)
    elif style == "dots":
        for i, x in enumerate(range(int(x0), int(x1) + step, step)):
            for y in range(int(y0) + (step // 2) * (i % 2), int(y1) + step, step):
                q = step * 0.25
                draw.ellipse([x - q, y - q, x + q, y + q], fill=other)
    elif style == "hatch":
        w = max(2, step // 4)
        for x in range(int(x0 - (y1 - y0)), int(x1), step):
            draw.line([(x, y1), (x + (y1 - y0), y0)], fill=other, width=w)
    elif style == "zigzag":
        w = max(2, step // 4)
        for y in range(int(y0), int(y1), step):
            pts = [(x, y + (step // 2 if i % 2 else 0))
                   for i, x in enumerate(range(int(x0), int(x1) + step, step // 2 or 1))]
            draw.line(pts, fill=other, width=w)


def _crown(draw, rng, cx, top, w, h, letter, colour, accent):
    if letter == "K":
        n = int(rng.integers(3, 6))
        pts = [(cx - w, top + h)]
        for i in range(n * 2 + 1):
            x = cx - w + 2 * w * i / (n * 2)
            pts.append((x, top if i % 2 == 0 else top + h * 0.55))
        pts.append((cx + w, top + h))
        draw.polygon(pts, fill=colour)
        for i in range(0, n * 2 + 1, 2):
            x = cx - w + 2 * w * i / (n * 2)
            q = h * 0.12
            draw.ellipse([x - q, top - q, x + q, top + q], fill=accent)
    elif letter == "Q":
        draw.chord([cx - w, top, cx + w, top + h * 1.6], 180, 360, fill=colour)
        n = int(rng.integers(3, 6))
        for i in range(n):
            x = cx - w * 0.8 + 1.6 * w * i / max(1, n - 1)
            q = h * 0.16
            draw.ellipse([x - q, top - q * 0.5, x + q, top + q * 1.5], fill=accent)
    else:  # a jack's cap with a feather, or an unnamed court's band
        draw.polygon([(cx - w, top + h), (cx - w * 0.8, top + h * 0.2), (cx + w * 0.9, top),
                      (cx + w, top + h)], fill=colour)
        draw.ellipse([cx + w * 0.4, top - h * 0.9, cx + w * 1.1, top + h * 0.4], fill=accent)


def _figure(d, rng, fw, fh, cx, letter, pal, paper):
    """Draw a half-length figure in the upper half (its robe reaches past the middle)."""
    u = min(fw, fh * 0.5)  # the figure's scale: the upper half's smaller side
    hr = u * rng.uniform(0.14, 0.19)  # head radius
    hy = fh * 0.5 * rng.uniform(0.30, 0.38)
    sy = hy + hr * 1.2  # shoulders
    sw = min(fw * 0.48, u * rng.uniform(0.42, 0.55))
    colour = [pal[int(i)] for i in rng.permutation(len(pal))]
    # robe: a wide trapezoid to the bottom, a patterned panel, a collar
    d.polygon([(cx - sw * 0.75, sy), (cx + sw * 0.75, sy), (cx + sw * 1.1, fh),
               (cx - sw * 1.1, fh)], fill=colour[0])
    _pattern(d, rng, (cx - sw * 0.3, sy, cx + sw * 0.3, fh), pal, paper)
    for sgn in (-1, 1):  # sleeves
        d.polygon([(cx + sgn * sw * 0.75, sy), (cx + sgn * sw, sy + hr * 0.6),
                   (cx + sgn * sw * 0.95, fh * 0.5), (cx + sgn * sw * 0.6, fh * 0.5)],
                  fill=colour[1])
    n = int(rng.integers(4, 9))
    pts = [(cx - sw * 0.75 + 1.5 * sw * i / n, sy + (hr * 0.5 if i % 2 else 0)) for i in
           range(n + 1)]
    d.polygon([(cx - sw * 0.75, sy - hr * 0.2), (cx + sw * 0.75, sy - hr * 0.2), *pts[::-1]],
              fill=colour[2])
    # head: hair (or beard), face, eyes, mouth
    skin = [(250, 225, 190), (245, 235, 215), paper][int(rng.integers(3))]
    d.ellipse([cx - hr * 1.3, hy - hr * 1.05, cx + hr * 1.3, hy + hr * 1.45], fill=colour[3])
    d.ellipse([cx - hr, hy - hr, cx + hr, hy + hr * 1.15], fill=skin, outline=(30, 30, 30),
              width=max(1, int(hr * 0.06)))
    e = hr * 0.11
    for sgn in (-1, 1):
        d.ellipse([cx + sgn * hr * 0.38 - e, hy - e, cx + sgn * hr * 0.38 + e, hy + e],
                  fill=(20, 20, 20))
    d.line([(cx - hr * 0.3, hy + hr * 0.55), (cx + hr * 0.3, hy + hr * 0.55)],
           fill=(150, 30, 30), width=max(1, int(hr * 0.08)))
    if letter == "K" or (letter is None and rng.random() < 0.4):
        d.chord([cx - hr * 0.8, hy + hr * 0.3, cx + hr * 0.8, hy + hr * 1.6], 0, 180,
                fill=colour[3])  # beard
    _crown(d, rng, cx, hy - hr * 1.75, hr * 1.05, hr * 0.8, letter, colour[2], colour[0])
    # a prop held up: a sceptre, a sword or a flower
    px = cx + (1 if rng.random() < 0.5 else -1) * sw * rng.uniform(0.55, 0.85)
    lw = max(2, int(u * 0.03))
    top = fh * 0.5 * rng.uniform(0.15, 0.35)
    d.line([(px, top), (px, fh * 0.55)], fill=colour[3], width=lw)
    q = u * rng.uniform(0.035, 0.06)
    kind = int(rng.integers(3))
    if kind == 0:
        d.ellipse([px - q, top - q, px + q, top + q], fill=colour[1])
    elif kind == 1:
        d.polygon([(px - q * 1.8, top + q * 2), (px + q * 1.8, top + q * 2), (px, top + q * 2.6)],
                  fill=colour[1])
    else:
        for a in range(5):
            ang = 2 * math.pi * a / 5
            fx, fy = px + q * math.cos(ang), top + q * math.sin(ang)
            d.ellipse([fx - q * 0.7, fy - q * 0.7, fx + q * 0.7, fy + q * 0.7], fill=colour[1])
    # a few ornaments on the robe
    for _ in range(int(rng.integers(2, 7))):
        x = cx + rng.uniform(-sw, sw) * 0.9
        y = rng.uniform(sy + hr, fh * 0.5)
        r = u * rng.uniform(0.02, 0.05)
        d.regular_polygon((x, y, r), int(rng.integers(3, 7)), fill=colour[int(rng.integers(4))])


def court_picture(rng, fw, fh, letter, suit_polys, suit_colour, paper, palette, font_path,
                  mode):
    """Draw a double-headed court picture, ``fw`` x ``fh`` pixels (RGB).

    ``letter`` is J, Q or K (None: one picture for every court, with no rank in it);
    ``suit_polys`` None leaves the suit out. ``mode``: "figure", "abstract" or "monogram".
    """
    img = Image.new("RGB", (fw, fh), paper)
    d = ImageDraw.Draw(img)
    pal = list(palette)
    if rng.random() < 0.5:
        d.rectangle([0, 0, fw, fh], fill=_tint(pal[int(rng.integers(len(pal)))], paper, 0.82))
    cx = fw * rng.uniform(0.42, 0.58)
    if mode == "figure":
        _figure(d, rng, fw, fh, cx, letter, pal, paper)
    else:
        n = int(rng.integers(5, 12))
        for _ in range(n):
            c = pal[int(rng.integers(len(pal)))]
            x, y = rng.uniform(0, fw), rng.uniform(0, fh * 0.55)
            r = fw * rng.uniform(0.05, 0.2)
            kind = int(rng.integers(4))
            if kind == 0:
                d.ellipse([x - r, y - r, x + r, y + r], fill=c)
            elif kind == 1:
                d.regular_polygon((x, y, r), int(rng.integers(3, 8)), rotation=rng.uniform(0, 90),
                                  fill=c)
            elif kind == 2:
                d.ellipse([x - r, y - r, x + r, y + r], outline=c, width=max(2, int(r * 0.2)))
            else:
                d.rectangle([x - r, y - r * 0.4, x + r, y + r * 0.4], fill=c)
        _pattern(d, rng, (0, fh * 0.47, fw, fh), pal, paper)
    if mode == "monogram" or (mode == "abstract" and letter and rng.random() < 0.7):
        text = letter or str(rng.choice(list("ABCDEFGHMNRSW")))
        r = min(fw, fh) * rng.uniform(0.25, 0.34)
        ly = fh * rng.uniform(0.22, 0.28)
        d.ellipse([cx - r, ly - r, cx + r, ly + r], fill=paper, outline=pal[0],
                  width=max(2, int(r * 0.08)))
        font = ImageFont.truetype(font_path, int(r * 1.2))
        d.text((cx, ly), text, fill=pal[3 % len(pal)], font=font, anchor="mm")
    if suit_polys is not None:
        s = fh * 0.09
        sx = fw * (0.14 if cx > fw / 2 else 0.86)
        draw_shape(d, suit_polys, sx, fh * 0.1, s, suit_colour)
    # double-headed: the lower part is the upper part turned half a turn
    mask = Image.new("L", (fw, fh), 0)
    md = ImageDraw.Draw(mask)
    split = str(rng.choice(["level", "diagonal"]))
    if split == "level":
        md.rectangle([0, 0, fw, fh // 2], fill=255)
    else:
        md.polygon([(0, 0), (fw, 0), (0, fh)], fill=255)
    out = img.rotate(180)
    out.paste(img, (0, 0), mask)
    if rng.random() < 0.6:
        od = ImageDraw.Draw(out)
        line = [(0, fh / 2), (fw, fh / 2)] if split == "level" else [(0, fh), (fw, 0)]
        od.line(line, fill=pal[3 % len(pal)], width=max(2, fw // 90))
    return out
