"""Test-suite-wide settings.

Hypothesis runs derandomised by default (profile ``ci``): every run tries the same examples, so a
CI run cannot fail on an example no earlier run tried. Set ``HYPOTHESIS_PROFILE=explore`` to draw
new examples each run (the slow runs and bug hunts).

``make test`` runs the suite on every core with pytest-xdist (``-n auto --dist loadfile``): each
test file runs on one worker, so a file's module fixtures are built once. Tests in different files
run at the same time: a test that stops a shared server (PostgreSQL) takes one of its own.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A new, empty folder with a short path, removed afterwards: a daemon binds its ZeroMQ
    ``ipc://`` sockets in its configuration's folder, and a socket's path may not pass 107
    bytes, which the path of ``tmp_path`` under a pytest-xdist worker can."""
    d = Path(tempfile.mkdtemp(prefix="tc-"))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)
