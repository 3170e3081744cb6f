"""Board sources, re-exported from :mod:`hardware.camera.source` (where they live now)."""

from hardware.camera.source import (
    DECK_MISMATCH_LINK,
    BoardObserved,
    DeckMatched,
    DeckMismatch,
    FrameBoardSource,
)

__all__ = ["DECK_MISMATCH_LINK", "BoardObserved", "DeckMatched", "DeckMismatch",
           "FrameBoardSource"]
