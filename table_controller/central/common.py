"""What the central store's modules share: the errors and the connection type."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit, urlunsplit

import psycopg
from psycopg.rows import TupleRow

from table_controller.errors import TableError

#: A connection with the default (tuple) rows.
Conn = psycopg.Connection[TupleRow]


class CentralError(TableError):
    """The central store cannot be used as asked (bad URL, schema, missing journal, ...)."""


class ForkedJournalError(CentralError):
    """The local journal and the central copy disagree on an entry: tampered or forked.

    Never retried: the shipper stops and says which entry differs.
    """


def safe_url(url: str) -> str:
    """Return ``url`` without its password, for logs and status files.

    >>> safe_url("postgresql://tc:secret@db.example:5432/floor")
    'postgresql://tc:***@db.example:5432/floor'
    >>> safe_url("postgresql://tc@127.0.0.1/floor")
    'postgresql://tc@127.0.0.1/floor'
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    netloc = f"{parts.username or ''}:***@{host}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def check_url(url: str) -> str:
    """Return ``url`` if it is a ``postgresql://`` (or ``postgres://``) URL.

    >>> check_url("mysql://x")
    Traceback (most recent call last):
    ...
    table_controller.central.common.CentralError: central url must start with postgresql://, got 'mysql://x'
    """
    if not url.startswith(("postgresql://", "postgres://")):
        raise CentralError(f"central url must start with postgresql://, got {url!r}")
    return url


_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)([smhd])$")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_time(text: str, *, now: datetime | None = None) -> datetime:
    """Parse an ISO 8601 time (UTC unless it says otherwise) or an age (``8h``, ``90m``).

    >>> parse_time("8h", now=datetime(2026, 1, 2, 12, tzinfo=UTC)).isoformat()
    '2026-01-02T04:00:00+00:00'
    >>> parse_time("2026-01-02 06:00").isoformat()
    '2026-01-02T06:00:00+00:00'

    :raises ValueError: neither.
    """
    m = _RELATIVE.match(text.strip())
    if m:
        now = now or datetime.now(UTC)
        return now - timedelta(seconds=float(m.group(1)) * _UNITS[m.group(2)])
    try:
        t = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"a time is ISO 8601 (2026-01-02T06:00) or an age (8h, 90m), "
                         f"got {text!r}") from None
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


def no_nul(text: str) -> str:
    r"""Return ``text`` with each NUL character replaced by U+FFFD (PostgreSQL stores no NUL).

    >>> no_nul("a\x00b") == "a\ufffdb"
    True
    """
    return text.replace("\x00", "\ufffd")


def _no_nul_in(value: object) -> object:
    if isinstance(value, str):
        return no_nul(value)
    if isinstance(value, list):
        return [_no_nul_in(v) for v in value]
    if isinstance(value, dict):
        return {no_nul(str(k)): _no_nul_in(v) for k, v in value.items()}
    return value


def jsonb_copy(text: str) -> str:
    r"""Return the JSON ``text`` as the central store's searchable ``jsonb`` copy can hold it.

    PostgreSQL's ``jsonb`` refuses the escape ``\u0000``: a NUL character in any string
    (a name a console typed, say) becomes U+FFFD in the copy; everything else is the same
    JSON. The hashed text copy beside it keeps the entry exactly as the table journaled it.

    >>> jsonb_copy('{"name":"a\\u0000b"}') == '{"name":"a\ufffdb"}'
    True
    >>> jsonb_copy('{"name":"plain"}')
    '{"name":"plain"}'
    """
    if "\\u0000" not in text:
        return text
    return json.dumps(_no_nul_in(json.loads(text)), ensure_ascii=False, separators=(",", ":"))
