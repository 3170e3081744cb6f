"""Test-suite-wide settings.

Hypothesis runs derandomised by default (profile ``ci``): every run tries the same examples, so a
CI run cannot fail on an example no earlier run tried. Set ``HYPOTHESIS_PROFILE=explore`` to draw
new examples each run (the slow runs and bug hunts).

``make test`` runs the suite on every core with pytest-xdist (``-n auto --dist loadgroup``): each
test file is one group, so a file's module fixtures are built once, on one worker; the tests that
use the PostgreSQL server are one group, since one of them stops and restarts that server.
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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put each test in its group for ``--dist loadgroup`` (module docstring)."""
    if not config.pluginmanager.hasplugin("xdist"):
        return
    for item in items:
        group = ("postgres" if "pg_server" in getattr(item, "fixturenames", ())
                 else item.nodeid.split("::", 1)[0])
        item.add_marker(pytest.mark.xdist_group(group))


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
