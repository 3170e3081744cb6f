"""Wire messages of the feeds and the command endpoint: versioned JSON, redaction, command schema.

Rules this module keeps (the full catalogue is ``docs/messages.md``):

1. Every message is one JSON object ``{"v": 1, "type": ..., "seq": ..., "table": ..., "ts": ...,
   "data": {...}}`` (commands and replies add ``"console"``). :func:`decode` refuses anything else
   with :class:`MessageError`, naming what was wrong.
2. Hole cards travel only under a key in :data:`HOLE_CARD_KEYS`. :func:`redact` masks every card
   under such a key as :data:`MASK`; :func:`check_no_hole_cards` raises :class:`HoleCardLeak` if a
   message still holds hole-card data, or names one of the secret cards anywhere (as ``"Ah"`` or
   as ``"ace of hearts"``). The public and dealer feeds pass through both, always.
3. A dealer command is ``data = {"command": NAME, ...arguments}``; :func:`parse_command` checks the
   name and the arguments against :data:`COMMANDS` and raises :class:`CommandError` naming what
   was wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from table_controller.boundedjson import MAX_DEPTH, MAX_SAFE_INT, JsonLimitError, loads
from table_controller.commands import COMMANDS as COMMANDS
from table_controller.commands import ArgSpec as ArgSpec
from table_controller.engine.cards import FULL_DECK
from table_controller.errors import TableError

#: Version of the message schema (the ``"v"`` field).
PROTOCOL_VERSION = 1
#: What a masked hole card looks like on the public and dealer feeds.
MASK = "??"
#: Keys under which cards the public must not see (hole cards, burn cards) appear in data.
HOLE_CARD_KEYS = frozenset(
    {"hole_cards", "hole_card", "hole", "holes", "burn_card", "burn_cards", "burns"}
)
#: Longest accepted console id.
MAX_CONSOLE_ID = 64
#: Largest message :func:`decode` takes by default (feed messages and snapshots), in bytes.
MAX_MESSAGE_BYTES = 1024 * 1024
#: Largest request (``snapshot_request``, ``command``) the endpoints take, in bytes.
MAX_REQUEST_BYTES = 16 * 1024
#: Largest ``seq`` (and any integer in a message): 2**53 - 1, exact in every JSON reader.
MAX_SEQ = MAX_SAFE_INT
#: Largest ``|ts|`` accepted (seconds; year 5138).
MAX_TS = 1e11

_TYPE_RE = re.compile(r"^[a-z][a-z0-9_]{0,47}$")
_CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs])(?![A-Za-z0-9])")
_CARD_WORDS = {c.code: c.describe() for c in FULL_DECK}


class FeedError(TableError):
    """A feed, snapshot or command endpoint failed or was misused."""


class MessageError(FeedError):
    """A message could not be decoded or does not follow the schema."""


class HoleCardLeak(FeedError):
    """A message for the public or dealer feed still contains hole-card data (it was not sent)."""


class CommandError(FeedError):
    """A dealer command is malformed (unknown name, missing or bad argument)."""


class CommandTimeout(FeedError):
    """The command endpoint did not answer after every retry."""


class KeyRefused(FeedError):
    """The table refused this client's CURVE handshake (its key, or the server key it used)."""


class Feed(StrEnum):
    """The audiences, each on its own socket."""

    PUBLIC = "public"
    DEALER = "dealer"
    SURVEILLANCE = "surveillance"


#: Feeds whose messages and snapshots are redacted and guarded against hole cards.
REDACTED_FEEDS = frozenset({Feed.PUBLIC, Feed.DEALER})

#: A table id a feed topic can carry (``table.id`` in the configuration): no ``/``.
TABLE_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,31}$")


def topic(table: str, mtype: str) -> bytes:
    """Return the topic (first frame) of a feed message: the table, ``/``, the type.

    A subscriber gives :func:`table_topic` to get one table's messages (through the floor proxy
    the filtering happens before the network), or ``TABLE/TYPE`` for one type of them.

    >>> topic("T1", "prompt")
    b'T1/prompt'
    """
    return f"{table}/{mtype}".encode()


def table_topic(table: str) -> bytes:
    """Return the topic prefix of every message of ``table`` (``b"T1/"``).

    >>> table_topic("T1")
    b'T1/'
    """
    return f"{table}/".encode()


@dataclass(frozen=True, slots=True)
class Message:
    """One decoded message.

    :param type: message type (``"prompt"``, ``"heartbeat"``, ``"command"``, ...).
    :param seq: per-feed sequence number (feeds), command sequence number (commands / replies),
        or the feed sequence number a snapshot corresponds to.
    :param table: table id.
    :param ts: wall-clock time of sending (seconds since the epoch).
    :param data: the body.
    :param console: console id (commands and replies only).
    :param v: schema version.
    """

    type: str
    seq: int
    table: str
    ts: float
    data: Mapping[str, Any] = field(default_factory=dict)
    console: str | None = None
    v: int = PROTOCOL_VERSION

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON object form."""
        d: dict[str, Any] = {
            "v": self.v, "type": self.type, "seq": self.seq, "table": self.table, "ts": self.ts,
            "data": dict(self.data),
        }
        if self.console is not None:
            d["console"] = self.console
        return d

    def encode(self) -> bytes:
        """Return the UTF-8 JSON bytes sent on the wire.

        :raises MessageError: if the data is not plain JSON.
        """
        try:
            return json.dumps(self.to_dict(), separators=(",", ":"), allow_nan=False).encode()
        except (TypeError, ValueError) as exc:
            raise MessageError(f"{self.type} message data is not plain JSON: {exc}") from exc


def _short(value: object, limit: int = 60) -> str:
    """``repr`` cut to ``limit`` characters: error messages stay one short line."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def decode(raw: bytes, *, max_bytes: int = MAX_MESSAGE_BYTES) -> Message:
    """Decode and check one message, within bounds (:mod:`table_controller.boundedjson`).

    Limits: at most ``max_bytes`` bytes; nesting at most
    :data:`~table_controller.boundedjson.MAX_DEPTH` deep; every integer ``|n| <= 2**53 - 1``
    (:data:`MAX_SEQ`); floats finite; ``|ts| <=`` :data:`MAX_TS`. Any input is answered in time
    linear in its size, with a message or :class:`MessageError` (one line).

    >>> decode(b'{"v":1,"type":"heartbeat","seq":4,"table":"T1","ts":1.5,"data":{}}').seq
    4

    :raises MessageError: naming the first thing wrong.
    """
    try:
        obj = loads(raw, max_bytes=max_bytes, max_depth=MAX_DEPTH)
    except JsonLimitError as exc:
        raise MessageError(str(exc)) from None
    if not isinstance(obj, dict):
        raise MessageError(f"a message must be a JSON object, got {type(obj).__name__}")
    v = obj.get("v")
    if v != PROTOCOL_VERSION or not _is_int(v):
        raise MessageError(f"v: unsupported schema version {_short(v)} (this side speaks 1)")
    mtype = obj.get("type")
    if not isinstance(mtype, str) or not _TYPE_RE.match(mtype):
        raise MessageError(f"type: must be a lower-case name, got {_short(mtype)}")
    seq = obj.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MAX_SEQ:
        raise MessageError(f"seq: must be an integer 0..2**53-1, got {_short(seq)}")
    table = obj.get("table")
    if not isinstance(table, str):
        raise MessageError(f"table: must be a string, got {_short(table)}")
    ts = obj.get("ts")
    if isinstance(ts, bool) or not isinstance(ts, int | float) or not abs(ts) <= MAX_TS:
        raise MessageError(f"ts: must be a number, |ts| <= {MAX_TS:g}, got {_short(ts)}")
    data = obj.get("data")
    if not isinstance(data, dict):
        raise MessageError(f"data: must be an object, got {_short(data)}")
    console = obj.get("console")
    if console is not None and (
        not isinstance(console, str) or not console or len(console) > MAX_CONSOLE_ID
    ):
        raise MessageError(f"console: must be a non-empty string (max {MAX_CONSOLE_ID}), "
                           f"got {_short(console)}")
    unknown = set(obj) - {"v", "type", "seq", "table", "ts", "data", "console"}
    if unknown:
        raise MessageError(f"unknown field {_short(sorted(unknown)[0])}")
    return Message(mtype, seq, table, float(ts), data, console, v)


# -- hole-card redaction ------------------------------------------------------------------------


def _mask(value: Any) -> Any:
    if isinstance(value, str):
        return MASK
    if isinstance(value, Mapping):
        return {k: _mask(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_mask(v) for v in value]
    return value


def redact(data: Any) -> Any:
    """Return a copy of ``data`` with every card under a hole-card key masked as :data:`MASK`.

    The structure is kept, so a display can still draw face-down cards.

    >>> redact({"seat": 3, "hole_cards": {"3": ["Ah", "Kd"]}, "board": ["2c"]})
    {'seat': 3, 'hole_cards': {'3': ['??', '??']}, 'board': ['2c']}
    """
    if isinstance(data, Mapping):
        return {k: (_mask(v) if k in HOLE_CARD_KEYS else redact(v)) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [redact(v) for v in data]
    return data


def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield f"{path}.{k}", str(k)
            yield from _strings(v, f"{path}.{k}")
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _strings(v, f"{path}[{i}]")


def _hole_leaks(value: Any, path: str, under_hole: bool) -> Iterator[str]:
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _hole_leaks(v, f"{path}.{k}", under_hole or k in HOLE_CARD_KEYS)
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _hole_leaks(v, f"{path}[{i}]", under_hole)
    elif under_hole and isinstance(value, str) and value != MASK:
        yield path


def check_no_hole_cards(data: Any, secret_cards: Collection[str] = (), *, what: str = "") -> None:
    """Raise if ``data`` holds hole-card data or names a secret card.

    :param data: message data (or a whole state) bound for the public or dealer feed.
    :param secret_cards: codes (``"Ah"``) of the hole cards not yet shown; none of them may
        appear anywhere, in code form or in words (``"ace of hearts"``).
    :param what: what is being checked, for the error message.
    :raises HoleCardLeak: naming the path of the offending value.
    """
    for path in _hole_leaks(data, "data", False):
        raise HoleCardLeak(f"{what or 'message'}: unmasked hole card at {path}")
    if not secret_cards:
        return
    secret = set(secret_cards)
    words = {_CARD_WORDS[c] for c in secret if c in _CARD_WORDS}
    for path, text in _strings(data, "data"):
        for m in _CARD_TOKEN.finditer(text):
            if m.group(1) in secret:
                raise HoleCardLeak(f"{what or 'message'}: hole card {m.group(1)} at {path}")
        low = text.lower()
        for w in words:
            if w in low:
                raise HoleCardLeak(f"{what or 'message'}: hole card '{w}' at {path}")


def _leaks(value: Any, under: bool) -> bool:
    """Tell whether :func:`_hole_leaks` would find anything (no paths built)."""
    t = type(value)
    if t is str:
        return under and value != MASK
    if t is dict or (t is not list and t is not tuple and isinstance(value, Mapping)):
        for k, v in value.items():  # noqa: SIM110 - a loop: no generator per container
            if _leaks(v, under or k in HOLE_CARD_KEYS):
                return True
        return False
    if t is list or t is tuple or isinstance(value, list | tuple):
        for v in value:  # noqa: SIM110 - a loop: no generator per container
            if _leaks(v, under):
                return True
        return False
    return under and isinstance(value, str) and value != MASK


def check_encoded(data: Any, text: str, secret_cards: Collection[str] = (), *,
                  what: str = "") -> None:
    """Raise exactly when :func:`check_no_hole_cards` would, using ``data``'s JSON text.

    ``text`` must be ``json.dumps(data)`` (ASCII, the wire form). The text holds every key and
    string of ``data``, so a secret card or its words absent from it are absent from ``data``;
    only a text with an escape (a character JSON does not write as itself, which could hide a
    token boundary or lower-case into ASCII) or with a candidate is walked in full.

    :raises HoleCardLeak: naming the path of the offending value.
    """
    if any(f'"{k}":' in text for k in HOLE_CARD_KEYS) and _leaks(data, False):
        check_no_hole_cards(data, (), what=what)  # raises, naming the path
    if not secret_cards:
        return
    if "\\" not in text:
        words = [_CARD_WORDS[c] for c in secret_cards if c in _CARD_WORDS]
        if not any(c in text for c in secret_cards):
            if not words:
                return
            low = text.lower()
            if not any(w in low for w in words):
                return
    check_no_hole_cards(data, secret_cards, what=what)


# -- dealer commands ----------------------------------------------------------------------------

def _check_arg(command: str, name: str, kind: str, value: Any) -> Any:
    where = f"{command}.{name}"
    if kind in ("seat", "chips", "id"):
        if not _is_int(value):
            raise CommandError(f"{where}: must be an integer, got {value!r}")
        if kind == "seat" and not 1 <= value <= 10:
            raise CommandError(f"{where}: must be a seat number 1..10, got {value}")
        if kind == "chips" and value <= 0:
            raise CommandError(f"{where}: must be > 0, got {value}")
        if kind == "id" and value < 0:
            raise CommandError(f"{where}: must be >= 0, got {value}")
        return value
    if not isinstance(value, str) or not value.strip():
        raise CommandError(f"{where}: must be a non-empty string, got {value!r}")
    if len(value) > 500:
        raise CommandError(f"{where}: at most 500 characters, got {len(value)}")
    return value


def parse_command(data: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Check a command body against :data:`COMMANDS`.

    >>> parse_command({"command": "raise", "seat": 3, "to": 400})
    ('raise', {'seat': 3, 'to': 400})

    :returns: the command name and its arguments.
    :raises CommandError: on an unknown command, a missing, unknown or bad argument.
    """
    name = data.get("command")
    if not isinstance(name, str) or name not in COMMANDS:
        known = ", ".join(sorted(COMMANDS))
        raise CommandError(f"unknown command {name!r} (one of {known})")
    specs, _ = COMMANDS[name]
    args: dict[str, Any] = {}
    for arg, kind, required in specs:
        if arg not in data:
            if required:
                raise CommandError(f"{name}.{arg}: missing")
            continue
        args[arg] = _check_arg(name, arg, kind, data[arg])
    unknown = set(data) - {"command"} - {s[0] for s in specs}
    if unknown:
        raise CommandError(f"{name}: unknown argument {sorted(unknown)[0]!r}")
    return name, args


@dataclass(frozen=True, slots=True)
class Command:
    """A well-formed dealer command, as given to the daemon's handler.

    :param console: console id.
    :param seq: the console's sequence number for this command.
    :param name: command name (a key of :data:`COMMANDS`).
    :param args: checked arguments.
    :param key: the console's CURVE public key (z85) when the endpoint uses CURVE, else ``None``.
    :param ts: the console's timestamp.
    """

    console: str
    seq: int
    name: str
    args: Mapping[str, Any]
    key: str | None = None
    ts: float = 0.0

    def body(self) -> dict[str, Any]:
        """Return the command body as sent (``{"command": name, **args}``)."""
        return {"command": self.name, **self.args}


@dataclass(frozen=True, slots=True)
class CommandReply:
    """The answer to a command.

    :param accepted: ``True`` if the command was applied; a refused command changed nothing.
    :param reason: why it was refused (plain words), or a note.
    :param result: structured data (for example the new hand number, or the status).
    :param replayed: ``True`` when the answer came from the record (a resent command).
    """

    accepted: bool
    reason: str = ""
    result: Mapping[str, Any] = field(default_factory=dict)
    replayed: bool = False

    def to_data(self) -> dict[str, Any]:
        """Return the reply body (without ``replayed``, which is added on sending)."""
        return {"accepted": self.accepted, "reason": self.reason, "result": dict(self.result)}

    @classmethod
    def from_data(cls, data: Mapping[str, Any], *, replayed: bool = False) -> CommandReply:
        """Build from a reply body.

        :raises MessageError: if the body is not a reply.
        """
        accepted = data.get("accepted")
        reason = data.get("reason", "")
        result = data.get("result", {})
        if not isinstance(accepted, bool) or not isinstance(reason, str) or not isinstance(
            result, Mapping
        ):
            raise MessageError(f"not a command reply: {dict(data)!r}")
        return cls(accepted, reason, result, replayed)
