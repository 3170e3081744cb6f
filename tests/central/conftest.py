"""A real PostgreSQL server for the central store's tests (tools/scratch_postgres.sh).

``TC_TEST_POSTGRES_URL`` and ``TC_TEST_POSTGRES_DIR`` (printed by ``scratch_postgres.sh start``,
exported by .ci/run) name a running scratch cluster; without them one is started in a temporary
directory on a free loopback port. Under CI (``CI`` set) a server that cannot be had fails the
tests; locally they are skipped with the reason.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "scratch_postgres.sh"


@dataclass(frozen=True)
class PgServer:
    url: str
    dir: str

    def _run(self, what: str) -> None:
        subprocess.run(["bash", str(SCRIPT), what], check=True, timeout=120,
                       env={**os.environ, "TC_PG_DIR": self.dir,
                            "TC_PG_PORT": str(psycopg.conninfo.conninfo_to_dict(self.url)
                                              .get("port", ""))})

    def halt(self) -> None:
        """Stop the server (immediate shutdown, data kept)."""
        self._run("halt")

    def resume(self) -> None:
        self._run("resume")

    def database(self) -> str:
        """A new, empty database on the server; its URL."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}".encode())
        return self.url.rsplit("/", 1)[0] + "/" + name


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    url, directory = os.environ.get("TC_TEST_POSTGRES_URL"), os.environ.get("TC_TEST_POSTGRES_DIR")
    if url and directory:
        yield PgServer(url, directory)
        return
    # not under pytest's own temporary directory: that is private to root, and the server runs
    # as the "postgres" user
    base = Path(tempfile.mkdtemp(prefix="tc-pg-"))
    os.chmod(base, 0o755)
    d = str(base / "cluster")
    port = _free_port()
    env = {**os.environ, "TC_PG_DIR": d, "TC_PG_PORT": str(port)}
    try:
        out = subprocess.run(["bash", str(SCRIPT), "start"], env=env, capture_output=True,
                             text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        reason = f"cannot start PostgreSQL: {exc}"
    else:
        reason = f"cannot start PostgreSQL: {out.stderr.strip()[-500:]}"
        if out.returncode == 0:
            server = PgServer(f"postgresql://tc@127.0.0.1:{port}/tc_test", d)
            try:
                yield server
            finally:
                subprocess.run(["bash", str(SCRIPT), "stop"], env=env, timeout=120,
                               capture_output=True)
                shutil.rmtree(base, ignore_errors=True)
            return
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture
def pg_url(pg_server: PgServer) -> str:
    return pg_server.database()
