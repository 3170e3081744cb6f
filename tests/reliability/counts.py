"""What the reliability tests exercised, added up over a session (see ``conftest.py``)."""

from __future__ import annotations

from collections import Counter

COUNTS: Counter[str] = Counter()
