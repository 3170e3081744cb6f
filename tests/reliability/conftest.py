"""Write the counts of what the reliability tests exercised to ``$RELIABILITY_COUNTS`` (JSON).

Each test adds to :data:`tests.reliability.counts.COUNTS` (inputs fuzzed, hands played, faults
injected, ...); at the end of the session, when the environment variable ``RELIABILITY_COUNTS``
names a file, the totals are written there so ``docs/reliability.md`` quotes runs that happened.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.reliability.counts import COUNTS


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = os.environ.get("RELIABILITY_COUNTS")
    if path and COUNTS:
        Path(path).write_text(json.dumps(dict(sorted(COUNTS.items())), indent=2) + "\n")
