"""What the central store's modules share: the errors and the connection type."""

from __future__ import annotations

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
