"""Card faces shipped with the package, for the simulated camera and the recognizer defaults.

``kennard/`` holds the 52 faces of Adrian Kennard's designs (CC0-1.0, from the npm package
@letele/playing-cards) as PNG (RGBA, transparent outside the card), named
``<rank><suit>.png``. They are package data: :func:`face_folder` finds them through
:mod:`importlib.resources`, in a source tree and in an installed wheel alike.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from table_controller.errors import ConfigError

#: The design the simulated camera uses when none is given.
DEFAULT_DESIGN = "kennard"


def face_folder(design: str = DEFAULT_DESIGN) -> Path:
    """Return the folder of the shipped faces of ``design``.

    :raises ConfigError: if no such design is shipped (or the package is not on a file system).
    """
    folder = files(__name__) / design
    if not isinstance(folder, Path) or not folder.is_dir():
        raise ConfigError(f"no card faces {design!r} are shipped in {__name__}")
    return folder
