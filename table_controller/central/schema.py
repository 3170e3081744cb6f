"""The central store's schema: versioned SQL files applied in order, one transaction each.

Rules this module keeps:

1. ``migrations/NNNN_name.sql`` (package data) are applied in the order of their number; the
   number of the last one applied is kept in ``schema_version``. A file is applied whole in one
   transaction (with its ``schema_version`` row), or not at all.
2. Many shippers may start at once: the migrations run under a transaction-level advisory lock,
   so exactly one applies each file and the others then see it applied.
3. A database whose schema is newer than this program knows is refused (an old shipper must not
   write into a schema it does not understand).
"""

from __future__ import annotations

import re
from importlib import resources

from table_controller.central.common import CentralError, Conn

#: Advisory lock key held while migrating ("tc-central" as a number).
_LOCK = 0x74632D63656E74

_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


def migrations() -> list[tuple[int, str, str]]:
    """Return ``(version, file name, SQL)`` of every shipped migration, in order.

    >>> [v for v, _, _ in migrations()][:1]
    [1]
    """
    found = []
    for item in resources.files("table_controller.central").joinpath("migrations").iterdir():
        m = _NAME.match(item.name)
        if m:
            found.append((int(m.group(1)), item.name, item.read_text(encoding="utf-8")))
    found.sort()
    for i, (version, name, _) in enumerate(found, start=1):
        if version != i:
            raise CentralError(f"central migrations: {name} out of sequence (expected {i:04d})")
    return found


def latest_version() -> int:
    """Return the schema version this program writes."""
    return len(migrations())


def current_version(conn: Conn) -> int:
    """Return the database's schema version (0: no schema yet)."""
    row = conn.execute("SELECT to_regclass('schema_version') IS NOT NULL").fetchone()
    if row is None or not row[0]:
        conn.commit()
        return 0
    row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
    conn.commit()
    return int(row[0]) if row is not None else 0


def migrate(conn: Conn) -> list[int]:
    """Bring the schema up to :func:`latest_version`; return the versions applied now.

    :raises CentralError: if the database's schema is newer than this program's.
    """
    applied: list[int] = []
    for version, name, sql in migrations():
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK,))
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, "
                "name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            row = conn.execute("SELECT coalesce(max(version), 0) FROM schema_version").fetchone()
            have = int(row[0]) if row is not None else 0
            if have >= version:
                continue
            conn.execute(sql.encode("utf-8"))
            conn.execute(
                "INSERT INTO schema_version (version, name) VALUES (%s, %s)", (version, name)
            )
            applied.append(version)
    have = current_version(conn)
    if have > latest_version():
        raise CentralError(
            f"central store schema version {have} is newer than this program's "
            f"({latest_version()}): upgrade table-controller"
        )
    return applied
