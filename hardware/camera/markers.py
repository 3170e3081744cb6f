"""The board marker sheet at true size: the four ArUco markers to print and lay at the corners.

Rules this module keeps:

1. The sheet is an A4 page (210 x 297 mm) at :data:`SHEET_DPI`: four markers (DICT_4X4_50, ids
   0..3) of the layout's ``marker_mm`` black square, each inside its white quiet zone of
   ``marker_margin_mm`` and a thin cut line, labelled with its id and corner; a 100 mm scale bar
   with its length printed checks that the sheet was printed at 100%.
2. PNG files carry their resolution (a ``pHYs`` chunk), PDF files their page size in points, so
   a printer that honours them prints true size; the scale bar tells when it did not.
3. Pure: no file is written here but by :func:`write_marker_sheet`.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from hardware.camera.geometry import BoardGeometry
from table_controller.errors import CalibrationError

Image = npt.NDArray[np.uint8]

SHEET_DPI = 300
SHEET_MM = (210.0, 297.0)
SCALE_BAR_MM = 100.0
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")


def _px(mm: float) -> int:
    return round(mm / 25.4 * SHEET_DPI)


def marker_sheet(geometry: BoardGeometry | None = None) -> Image:
    """Render the A4 marker sheet (greyscale, :data:`SHEET_DPI`).

    :raises CalibrationError: if the four markers with their quiet zones do not fit the page.
    """
    geo = geometry or BoardGeometry()
    outer_mm = geo.marker_mm + 2 * geo.marker_margin_mm
    if 2 * outer_mm + 30 > SHEET_MM[0] or 2 * outer_mm + 80 > SHEET_MM[1]:
        raise CalibrationError(
            f"markers of {geo.marker_mm:g} mm with {geo.marker_margin_mm:g} mm quiet zones do "
            "not fit two by two on an A4 sheet"
        )
    w, h = _px(SHEET_MM[0]), _px(SHEET_MM[1])
    page = np.full((h, w), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    side = _px(geo.marker_mm)
    quiet = _px(geo.marker_margin_mm)
    outer = side + 2 * quiet
    gap_x = (w - 2 * outer) // 3
    top = _px(25.0)
    gap_y = _px(25.0)
    font = cv2.FONT_HERSHEY_SIMPLEX
    for marker_id in range(4):
        col = 0 if marker_id in (0, 3) else 1
        row = 0 if marker_id in (0, 1) else 1
        x0 = gap_x + col * (outer + gap_x)
        y0 = top + row * (outer + gap_y)
        marker = np.asarray(cv2.aruco.generateImageMarker(dictionary, marker_id, side), np.uint8)
        page[y0 + quiet : y0 + quiet + side, x0 + quiet : x0 + quiet + side] = marker
        cv2.rectangle(page, (x0, y0), (x0 + outer, y0 + outer), 160, 1)
        label = f"id {marker_id}: board {CORNER_NAMES[marker_id]}"
        cv2.putText(page, label, (x0, y0 + outer + _px(6.0)), font, 1.1, 0, 2, cv2.LINE_AA)
    # Scale bar: 100 mm with 10 mm ticks.
    y = top + 2 * outer + gap_y + _px(25.0)
    x0 = (w - _px(SCALE_BAR_MM)) // 2
    x1 = x0 + _px(SCALE_BAR_MM)
    cv2.rectangle(page, (x0, y), (x1, y + _px(2.0)), 0, -1)
    for i in range(11):
        x = x0 + _px(10.0 * i)
        cv2.line(page, (x, y - _px(3.0)), (x, y + _px(2.0)), 0, 3)
    lines = [
        f"this bar is {SCALE_BAR_MM:g} mm: print at 100% (no 'fit to page'), then measure it",
        f"markers DICT_4X4_50, black square {geo.marker_mm:g} mm, quiet zone "
        f"{geo.marker_margin_mm:g} mm; sheet {SHEET_DPI} dpi",
        "cut on the grey lines; lay each so its quiet zone touches its board corner",
    ]
    for i, text in enumerate(lines):
        cv2.putText(page, text, (x0 - _px(40.0), y + _px(12.0 + 7.0 * i)), font, 0.9, 0, 2,
                    cv2.LINE_AA)
    return page


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def png_bytes(image: Image, dpi: int = SHEET_DPI) -> bytes:
    """Encode a greyscale image as PNG with its resolution (``pHYs``, pixels per metre)."""
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise CalibrationError("the marker sheet could not be encoded as PNG")
    data = bytes(buf)
    ppm = round(dpi / 0.0254)
    phys = _png_chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1))
    end_of_ihdr = 8 + 4 + 4 + 13 + 4
    return data[:end_of_ihdr] + phys + data[end_of_ihdr:]


def pdf_bytes(image: Image, page_mm: tuple[float, float] = SHEET_MM) -> bytes:
    """Encode the greyscale ``image`` as a one-page PDF of ``page_mm``, filling the page."""
    h, w = image.shape[:2]
    pw, ph = (round(v / 25.4 * 72, 3) for v in page_mm)
    pixels = zlib.compress(np.ascontiguousarray(image).tobytes(), 6)
    content = f"q {pw} 0 0 {ph} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw} {ph}] "
         "/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>").encode(),
        (f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
         f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(pixels)} >>\nstream\n").encode()
        + pixels + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n"
            .encode())
    return bytes(out)


def write_marker_sheet(path: str | Path, geometry: BoardGeometry | None = None) -> Path:
    """Write the marker sheet as PDF (``.pdf``) or PNG (``.png``) at true size.

    :raises CalibrationError: for another extension or if the file cannot be written.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise CalibrationError(f"marker sheet {str(p)!r}: name it .pdf or .png")
    sheet = marker_sheet(geometry)
    data = pdf_bytes(sheet) if suffix == ".pdf" else png_bytes(sheet)
    try:
        p.write_bytes(data)
    except OSError as exc:
        raise CalibrationError(f"marker sheet {str(p)!r} cannot be written: "
                               f"{exc.strerror or exc}") from None
    return p
