"""Image files for the technician's camera commands, with one-line errors.

Rules this module keeps:

1. A file to read is checked before OpenCV sees it: a missing path, a folder or a file OpenCV
   cannot decode each raise :class:`~table_controller.errors.ConfigError` naming the path (and
   OpenCV prints no warning of its own).
2. A file to write is checked before any work is done (a frame grabbed, a profile written): its
   folder must exist and its name must end in an extension OpenCV writes (``.png``, ``.jpg``,
   ...); a write that still fails raises too. No OpenCV exception leaves this module.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from table_controller.errors import ConfigError

Image = npt.NDArray[np.uint8]


def _name(what: str, path: str) -> str:
    return f"{what} {path!r}" if what else repr(path)


def read_image(path: str, what: str = "") -> Image:
    """Return the BGR image in ``path``.

    :param what: how the message names the file (``"--image"``), or nothing.
    :raises ConfigError: if the file does not exist or is not an image OpenCV reads.
    """
    p = Path(path)
    if not p.exists():
        raise ConfigError(f"{_name(what, path)} does not exist")
    if not p.is_file():
        raise ConfigError(f"{_name(what, path)} is not a file")
    try:
        data = np.fromfile(p, np.uint8)
    except OSError as exc:
        raise ConfigError(f"{_name(what, path)} cannot be read: {exc.strerror}") from None
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ConfigError(f"{_name(what, path)} cannot be read as an image (PNG, JPEG, ...)")
    return np.asarray(image, np.uint8)


def check_image_target(path: str, what: str = "") -> None:
    """Check that an image can be written to ``path`` (before the work that makes it).

    :raises ConfigError: if its folder does not exist or OpenCV writes no such extension.
    """
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise ConfigError(f"{_name(what, path)}: folder {str(folder)!r} does not exist")
    if p.is_dir():
        raise ConfigError(f"{_name(what, path)} is a folder")
    if not p.suffix or not cv2.haveImageWriter(str(p)):
        raise ConfigError(f"{_name(what, path)}: name it .png or .jpg (the extension gives the "
                          "image format)")


def write_image(path: str, image: Image, what: str = "") -> None:
    """Write ``image`` to ``path`` (format by the extension).

    :raises ConfigError: as :func:`check_image_target`, or if the write fails.
    """
    check_image_target(path, what)
    try:
        ok = cv2.imwrite(path, image)
    except cv2.error:
        ok = False
    if not ok:
        raise ConfigError(f"{_name(what, path)} cannot be written")
