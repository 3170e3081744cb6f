"""Deck profiles: which RFID tag is which card, registered per physical deck.

A deck profile is a TOML file ``<decks_dir>/<name>.toml``::

    # Deck profile written by table-controller calibrate deck
    format = 1
    name = "casino-red"
    registered = "2026-11-29T12:00:00+00:00"
    source = "draws in sorted order"

    [cards]
    "04F5B16522B791" = "2c"
    "04DF6AF1D861CD" = "2d"
    # ... 52 lines

Several decks live side by side in one directory; the active one is named by the table
configuration (``calibration.active_deck``) or, for the command line, by the one-line file
``<decks_dir>/active``.

Registration (see :func:`register_reads`): the dealer runs a new deck through the shoe in a known
order, or the shoe scans a deck laid in that order. Two orders are known (:data:`ORDERS`):

- ``sorted``: :data:`~table_controller.engine.cards.FULL_DECK` order, rank by rank from the
  deuces up, suits clubs, diamonds, hearts, spades within a rank (2c 2d 2h 2s 3c ... As).
- ``suits``: suit by suit (clubs, diamonds, hearts, spades), ace first then 2 to king within a
  suit (Ac 2c ... Kc Ad ... Ks), the order most new decks come in.

Rules this module keeps:

1. A profile holds exactly 52 distinct tags mapped to the 52 distinct cards; anything else is
   refused with a :class:`~table_controller.errors.CalibrationError` naming what is wrong, and
   nothing is written.
2. A tag may belong to one registered deck only: a tag already in another deck is refused.
3. Files are read with ``tomllib``; unknown keys are refused with the key named. Files are
   written atomically (temporary file, then rename).

>>> profile = register_reads("demo", [f"{i:08X}" for i in range(52)], "suits")
>>> profile.card("00000000"), profile.card("0000000D"), profile.card("00000033")
(Card('Ac'), Card('Ad'), Card('Ks'))
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType

from table_controller.engine.cards import FULL_DECK, Card, CardError
from table_controller.errors import CalibrationError

FORMAT = 1
DECK_SIZE = 52
ORDERS: Mapping[str, tuple[Card, ...]] = MappingProxyType(
    {
        "sorted": FULL_DECK,
        "suits": tuple(Card(r, s) for s in range(4) for r in (12, *range(12))),
    }
)
ACTIVE_FILE = "active"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,39}$")
_UID = re.compile(r"^(?:[0-9A-F]{2}){4,10}$")
_KEYS = {"format", "name", "registered", "source", "cards"}


def check_name(name: str) -> str:
    """Return ``name`` if it is a valid deck name.

    :raises CalibrationError: unless it is 1..40 letters, digits, ``_`` or ``-``.
    """
    if not _NAME.match(name):
        raise CalibrationError(
            f"deck name {name!r}: use 1 to 40 letters, digits, '_' or '-', starting with a "
            "letter or digit"
        )
    return name


def normalise_uid(uid: str) -> str:
    """Upper-case a tag UID and check it is 4 to 10 bytes of hex.

    :raises CalibrationError: naming the UID.
    """
    text = uid.strip().upper()
    if not _UID.match(text):
        raise CalibrationError(f"tag UID {uid!r} is not 4 to 10 bytes of hex")
    return text


@dataclass(frozen=True)
class DeckProfile:
    """One registered deck: tag UID to card, exactly 52 of each.

    Build it with :meth:`build` (validated); :attr:`cards` is read-only.
    """

    name: str
    cards: Mapping[str, Card]
    registered: str = ""
    source: str = ""
    _by_card: Mapping[Card, str] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def build(
        cls, name: str, cards: Mapping[str, Card], *, registered: str = "", source: str = ""
    ) -> DeckProfile:
        """Validate and build a profile.

        :raises CalibrationError: for a bad name or UID, a count other than 52, or a card that
            appears twice or not at all.
        """
        check_name(name)
        clean: dict[str, Card] = {}
        by_card: dict[Card, str] = {}
        for uid, card in cards.items():
            u = normalise_uid(uid)
            if u in clean:
                raise CalibrationError(f"deck {name!r}: tag {u} is listed twice")
            if card in by_card:
                raise CalibrationError(
                    f"deck {name!r}: {card} is on two tags, {by_card[card]} and {u}"
                )
            clean[u] = card
            by_card[card] = u
        if len(clean) != DECK_SIZE:
            missing = [c.code for c in FULL_DECK if c not in by_card]
            raise CalibrationError(
                f"deck {name!r} has {len(clean)} cards, a deck has {DECK_SIZE}"
                + (f" (missing: {' '.join(missing)})" if missing else "")
            )
        return cls(
            name,
            MappingProxyType(clean),
            registered,
            source,
            MappingProxyType(by_card),
        )

    def card(self, uid: str) -> Card | None:
        """Return the card on tag ``uid``, or ``None`` if the tag is not in this deck."""
        return self.cards.get(uid.upper())

    def uid(self, card: Card) -> str:
        """Return the tag of ``card``."""
        return self._by_card[card]

    def to_toml(self) -> str:
        """Render the profile as the TOML text described in the module docstring."""
        lines = [
            "# Deck profile written by table-controller calibrate deck",
            f"format = {FORMAT}",
            f'name = "{self.name}"',
        ]
        if self.registered:
            lines.append(f'registered = "{self.registered}"')
        if self.source:
            lines.append(f'source = "{_escape(self.source)}"')
        lines += ["", "[cards]"]
        order = sorted(self.cards.items(), key=lambda kv: kv[1].index)
        lines += [f'"{uid}" = "{card.code}"' for uid, card in order]
        return "\n".join(lines) + "\n"


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def parse_profile(text: str, where: str = "deck profile") -> DeckProfile:
    """Parse and validate a deck profile's TOML text.

    :raises CalibrationError: naming the key or value that is wrong.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CalibrationError(f"{where}: not valid TOML: {exc}") from None
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise CalibrationError(f"{where}: unknown key {unknown[0]!r} (known: {sorted(_KEYS)})")
    if data.get("format") != FORMAT:
        raise CalibrationError(f"{where}: format must be {FORMAT}, got {data.get('format')!r}")
    name = data.get("name")
    if not isinstance(name, str):
        raise CalibrationError(f"{where}: name must be a string, got {name!r}")
    cards_table = data.get("cards")
    if not isinstance(cards_table, dict):
        raise CalibrationError(f"{where}: [cards] table missing")
    cards: dict[str, Card] = {}
    for uid, text_card in cards_table.items():
        if not isinstance(text_card, str):
            raise CalibrationError(f"{where}: cards.{uid} must be a card like 'Ah'")
        try:
            cards[uid] = Card.parse(text_card)
        except CardError as exc:
            raise CalibrationError(f"{where}: cards.{uid}: {exc}") from None
    for key in ("registered", "source"):
        if not isinstance(data.get(key, ""), str):
            raise CalibrationError(f"{where}: {key} must be a string")
    try:
        return DeckProfile.build(
            name, cards, registered=data.get("registered", ""), source=data.get("source", "")
        )
    except CalibrationError as exc:
        raise CalibrationError(f"{where}: {exc}") from None


def load_profile(path: str | os.PathLike[str]) -> DeckProfile:
    """Read and validate a deck profile file.

    :raises CalibrationError: if it cannot be read or is invalid.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"cannot read deck profile {str(p)!r}: {exc.strerror}") from None
    return parse_profile(text, str(p))


def register_reads(
    name: str, uids: Sequence[str], order: str | Sequence[Card], *, source: str = ""
) -> DeckProfile:
    """Build a profile from tags read in a known order (draws or a deck scan).

    :param uids: the tags in the order the shoe read them.
    :param order: ``"sorted"``, ``"suits"`` (see :data:`ORDERS`) or the 52 cards themselves.
    :raises CalibrationError: unless there are exactly 52 distinct tags.
    """
    if isinstance(order, str):
        if order not in ORDERS:
            raise CalibrationError(f"unknown deck order {order!r} (known: {', '.join(ORDERS)})")
        cards = ORDERS[order]
        label = order
    else:
        cards = tuple(order)
        label = "custom"
    clean = [normalise_uid(u) for u in uids]
    first: dict[str, int] = {}
    for i, u in enumerate(clean):
        if u in first:
            raise CalibrationError(
                f"tag {u} was read twice (cards {first[u] + 1} and {i + 1}): a repeated read or "
                "a second copy; run the deck through again"
            )
        first[u] = i
    if len(clean) != DECK_SIZE:
        raise CalibrationError(f"read {len(clean)} tags, a deck has {DECK_SIZE}")
    stamp = datetime.now(UTC).replace(microsecond=0).isoformat()
    return DeckProfile.build(
        name,
        dict(zip(clean, cards, strict=True)),
        registered=stamp,
        source=source or f"{label} order",
    )


class DeckStore:
    """A directory of deck profiles with one active deck.

    :param root: the decks directory (created on first save).
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)

    def path(self, name: str) -> Path:
        """Return the file of deck ``name``."""
        return self.root / f"{check_name(name)}.toml"

    def names(self) -> list[str]:
        """Return the registered deck names, sorted."""
        if not self.root.is_dir():
            return []
        return sorted(p.stem for p in self.root.glob("*.toml") if _NAME.match(p.stem))

    def load(self, name: str) -> DeckProfile:
        """Load deck ``name``.

        :raises CalibrationError: if it is not registered or is invalid.
        """
        path = self.path(name)
        if not path.exists():
            known = ", ".join(self.names()) or "none"
            raise CalibrationError(f"no deck {name!r} in {str(self.root)!r} (registered: {known})")
        profile = load_profile(path)
        if profile.name != name:
            raise CalibrationError(f"{str(path)!r} holds deck {profile.name!r}, not {name!r}")
        return profile

    def profiles(self) -> list[DeckProfile]:
        """Load every registered deck."""
        return [self.load(n) for n in self.names()]

    def save(self, profile: DeckProfile, *, replace: bool = False) -> Path:
        """Write ``profile``; refuse a tag that belongs to another registered deck.

        :raises CalibrationError: if the name is taken (without ``replace``) or a tag is shared.
        """
        path = self.path(profile.name)
        if path.exists() and not replace:
            raise CalibrationError(
                f"deck {profile.name!r} is already registered (use --replace to overwrite it)"
            )
        for other in self.profiles():
            if other.name == profile.name:
                continue
            shared = sorted(set(other.cards) & set(profile.cards))
            if shared:
                uid = shared[0]
                raise CalibrationError(
                    f"tag {uid} is already registered as {other.cards[uid]} in deck "
                    f"{other.name!r} ({len(shared)} shared tag(s)): decks must not share tags"
                )
        self.root.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, profile.to_toml())
        return path

    def activate(self, name: str) -> None:
        """Make ``name`` the active deck.

        :raises CalibrationError: if it is not registered or is invalid.
        """
        self.load(name)
        _atomic_write(self.root / ACTIVE_FILE, name + "\n")

    def active_name(self) -> str | None:
        """Return the active deck's name, or ``None`` if none was activated."""
        try:
            text = (self.root / ACTIVE_FILE).read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        return text or None

    def active(self, name: str | None = None) -> DeckProfile:
        """Load deck ``name`` (the configuration's ``active_deck``) or the activated one.

        :raises CalibrationError: if there is none or it is invalid.
        """
        chosen = name or self.active_name()
        if chosen is None:
            raise CalibrationError(f"no active deck in {str(self.root)!r}: activate one")
        return self.load(chosen)

    def owner(self, uid: str) -> tuple[str, Card] | None:
        """Return ``(deck name, card)`` of the registered deck holding tag ``uid``, if any."""
        u = uid.upper()
        for profile in self.profiles():
            card = profile.card(u)
            if card is not None:
                return profile.name, card
        return None


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)

