"""What the hub sends, made ready before any send: bodies redacted, guarded and encoded once.

Pure functions (no sockets): :func:`prepare` redacts a public or dealer body (and the feed's
new snapshot state), checks that no secret hole card is left in it and encodes it to JSON;
:func:`wire` wraps JSON already encoded into the bytes :meth:`Message.encode
<table_controller.feeds.messages.Message.encode>` gives, so a body going to several feeds is
encoded once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from math import isfinite
from typing import Any

from table_controller.engine.cards import FULL_DECK, Card
from table_controller.feeds.messages import (
    HOLE_CARD_KEYS,
    PROTOCOL_VERSION,
    REDACTED_FEEDS,
    Feed,
    FeedError,
    check_encoded,
    check_no_hole_cards,
    redact,
)


def plain(value: Any) -> Any:
    """Deep copy into plain dicts and lists (read-only mappings and tuples are accepted).

    >>> plain({"a": (1, 2)})
    {'a': [1, 2]}
    """
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def encode_json(value: Any, what: str) -> str:
    """Encode message data the way :meth:`Message.encode` does.

    :raises FeedError: if it is not plain JSON.
    """
    try:
        return json.dumps(value, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise FeedError(f"{what} message data is not plain JSON: {exc}") from exc


@lru_cache(maxsize=256)
def _json_str(text: str) -> str:
    return json.dumps(text)


def wire(mtype: str, seq: int, table: str, ts: float, data_json: str) -> bytes:
    """Return the bytes :meth:`Message.encode` gives, around data already encoded.

    A plain ``int`` sequence number and a finite ``float`` or ``int`` time are written as
    ``json.dumps`` writes them (``repr``), the type and table as it writes strings (cached);
    anything else takes ``json.dumps`` itself.

    :raises FeedError: for a ``ts`` that is not a finite number.
    """
    if type(seq) is int and (type(ts) is int or (type(ts) is float and isfinite(ts))):
        return (f'{{"v":{PROTOCOL_VERSION},"type":{_json_str(mtype)},"seq":{seq!r},'
                f'"table":{_json_str(table)},"ts":{ts!r},"data":{data_json}}}').encode()
    head = encode_json(
        {"v": PROTOCOL_VERSION, "type": mtype, "seq": seq, "table": table, "ts": ts}, mtype)
    return f'{head[:-1]},"data":{data_json}}}'.encode()


_CODES = frozenset(c.code for c in FULL_DECK)
_HOLE_KEYS_JSON = tuple(f'"{k}":' for k in sorted(HOLE_CARD_KEYS))


def has_hole_card_key(text: str) -> bool:
    """Tell whether encoded data may hold a hole-card key (``False``: surely none).

    Every key of the data is in its JSON text as ``"key":`` (a hole-card key is plain ASCII,
    written as itself), so data whose text has none of them has no hole-card key, and
    :func:`~table_controller.feeds.messages.redact` leaves it as it is: its redacted copy is
    its plain copy.

    >>> has_hole_card_key('{"seat":3,"hole_cards":{"3":["??","??"]}}')
    True
    >>> has_hole_card_key('{"text":"Deal the flop"}')
    False
    """
    return any(k in text for k in _HOLE_KEYS_JSON)


def card_code(card: Card | str) -> str:
    """Return a card's two-character code (a code as written is taken without a parse).

    >>> card_code("Ah")
    'Ah'
    """
    if isinstance(card, Card):
        return card.code
    return card if card in _CODES else Card.parse(card).code


def prepare(
    feed: Feed,
    mtype: str,
    data: Mapping[str, Any],
    state: Mapping[str, Any] | None,
    secret: frozenset[str],
) -> tuple[dict[str, Any], str, Mapping[str, Any] | None]:
    """Return the body as sent, its JSON and the new snapshot state (redacted, checked).

    The guard runs on the encoded text (:func:`check_encoded`: the same verdict as walking the
    data, at a fraction of the cost); the body is encoded once, whatever the number of feeds it
    goes to.

    :param secret: codes of the hole cards no public or dealer message may name.
    :raises HoleCardLeak: if a public or dealer body or state still names a secret card.
    :raises FeedError: if the body is not plain JSON.
    """
    if feed in REDACTED_FEEDS:
        out: dict[str, Any] = redact(data)
        what = f"{feed} {mtype} message"
        try:
            text = encode_json(out, mtype)
        except FeedError:
            check_no_hole_cards(out, secret, what=what)  # a leak is named first
            raise
        check_encoded(out, text, secret, what=what)
        new_state: Mapping[str, Any] | None = None
        if state is not None:
            new_state = redact(state)
            what = f"{feed} state after {mtype}"
            try:
                state_text = encode_json(new_state, mtype)
            except FeedError:  # checked as before; a snapshot of it fails when asked
                check_no_hole_cards(new_state, secret, what=what)
            else:
                check_encoded(new_state, state_text, secret, what=what)
        return out, text, new_state
    copy = plain(data)
    return copy, encode_json(copy, mtype), (plain(state) if state is not None else None)
