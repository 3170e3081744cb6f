"""Pure renderers: a :class:`~.view.TableView` in, a rich renderable out.

Nothing here does I/O or reads a clock: tests render into ``Console(record=True)`` and compare
text. Three screens:

- :func:`render_public` — what players may see: seats, stacks, bets, board, pots, whose turn,
  announcements. Hole cards only ever as backs (the feed masks them anyway).
- :func:`render_dealer` — the current prompt, big and clear, what comes after it, holds and
  alerts, and the table in brief.
- :func:`render_floor` — one line per table: hand, stage, pot, alerts and holds, device health,
  feed link and, when a table ships its journal, the shipping line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich import box
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from table_controller.displays.view import SeatView, TableView, shipping_trouble

_SUITS = {"h": ("♥", "red"), "d": ("♦", "red"), "c": ("♣", "default"), "s": ("♠", "default")}
_LINK_STYLE = {"ok": "green", "live": "green", "waiting": "yellow", "stale": "yellow",
               "lost": "bold red", "closed": "red"}


def card_text(code: str | None) -> Text:
    """Render one card: ``A♥`` in red, ``K♠``; a face-down card as ``▒▒``; an empty slot ``··``."""
    if code is None:
        return Text("··", style="dim")
    if len(code) != 2 or code[1].lower() not in _SUITS:
        return Text("▒▒", style="blue")
    symbol, colour = _SUITS[code[1].lower()]
    rank = "10" if code[0].upper() == "T" else code[0].upper()
    return Text(f"{rank}{symbol}", style=f"bold {colour}")


def board_text(board: Sequence[str | None], slots: int = 5) -> Text:
    """Render the board's five slots."""
    cards = list(board)[:slots] + [None] * max(0, slots - len(board))
    out = Text()
    for i, c in enumerate(cards):
        if i:
            out.append("  ")
        out.append_text(card_text(c))
    return out


def _chips(n: int) -> str:
    return f"{n:,}"


def _connection_banner(view: TableView) -> RenderableType | None:
    if view.connection == "lost":
        return Panel(Text("CONNECTION LOST — waiting for the table…", style="bold white on red",
                          justify="center"), box=box.HEAVY, style="red")
    if view.connection in ("connecting", "syncing"):
        return Text(f"{view.connection}…", style="yellow")
    if view.connection == "stale":
        return Text("behind the table: catching up…", style="yellow")
    return None


def _hold_banner(view: TableView) -> RenderableType | None:
    if not view.holds:
        return None
    return Panel(Text("TABLE ON HOLD: " + "; ".join(view.holds), style="bold white on red",
                      justify="center"), box=box.HEAVY, style="red")


#: What the players are told while the table is held, by the kind of irregularity: plain
#: words, no internal names, no amounts or cards (the dealer's and floor's screens say those).
PLAYER_WORDS = {
    "chip_difference": "the dealer is checking the chips",
    "unknown_chip": "the dealer is checking the chips",
    "chip_on_two_zones": "the dealer is checking the chips",
    "collect_difference": "the dealer is checking the chips",
    "payout_difference": "the dealer is checking the payout",
    "pot_wrong_seat": "the dealer is checking the payout",
    "unknown_card": "the dealer is checking the deck",
    "duplicate_card": "the dealer is checking the deck",
    "boxed_card": "the dealer is checking the deck",
    "shoe_opened": "the dealer is checking the deck",
    "shoe_empty": "the dealer is checking the deck",
    "misdeal": "misdeal: the hand will be dealt again",
    "device_lost": "the table's card and chip readers are being checked",
    "reads_lost": "the table's card and chip readers are being checked",
    "card_not_due": "the dealer is correcting the deal",
    "extra_card": "the dealer is correcting the deal",
    "premature_flop": "the dealer is correcting the deal",
    "premature_turn": "the dealer is correcting the deal",
    "premature_river": "the dealer is correcting the deal",
    "flop_too_many": "the dealer is correcting the deal",
    "exposed_hole_card": "the dealer is correcting the deal",
    "exposed_card": "the dealer is correcting the deal",
    "card_during_scramble": "the dealer is correcting the deal",
    "card_between_hands": "the dealer is correcting the deal",
    "card_while_held": "the dealer is correcting the deal",
    "doubled_burn": "the dealer is correcting the deal",
    "missed_burn": "the dealer is correcting the deal",
    "no_misdeal": "the floor is ruling on a dealing error",
    "board_early": "the dealer is checking the board",
    "board_mismatch": "the dealer is checking the board",
    "board_missing": "the dealer is checking the board",
    "board_wrong_slot": "the dealer is checking the board",
}
#: When the hold's kind is not known (a hold the dealer or floor called).
PLAYER_DEFAULT = "the floor has been called to the table"


def player_hold_text(view: TableView) -> str:
    """Return the players' words for the hold in force (``""`` when the table is not held).

    >>> player_hold_text(TableView(holds=("seat 2's zone shows 0",),
    ...                            hold_kinds=("chip_difference",)))
    'Please wait: the dealer is checking the chips'
    >>> player_hold_text(TableView(holds=("floor called",)))
    'Please wait: the floor has been called to the table'
    """
    if not view.holds and not view.hold_kinds:
        return ""
    words: list[str] = []
    for kind in view.hold_kinds:
        text = PLAYER_WORDS.get(kind, PLAYER_DEFAULT)
        if text not in words:
            words.append(text)
    return "Please wait: " + "; ".join(words or [PLAYER_DEFAULT])


def _public_hold_banner(view: TableView) -> RenderableType | None:
    text = player_hold_text(view)
    if not text:
        return None
    return Panel(Text(text, style="bold white on dark_orange3", justify="center"),
                 box=box.HEAVY, style="dark_orange3")


def _header(view: TableView, role: str) -> Text:
    title = view.name or view.table or "table"
    played = view.extra.get("hands_played")
    if view.hand is not None:
        hand = f"hand #{view.hand}"
    elif isinstance(played, int) and played:
        hand = f"{played} hand{'s' if played != 1 else ''} played"
    else:
        hand = "no hand yet"
    stage = view.stage.replace("_", " ") if view.stage else "—"
    out = Text()
    out.append(f"{title}", style="bold")
    out.append(f"  ·  {hand}  ·  {stage}")
    out.append(f"  ·  {role} display", style="dim")
    return out


def _seat_status(s: SeatView, view: TableView) -> Text:
    parts: list[tuple[str, str]] = []
    if view.button == s.seat:
        parts.append(("BTN", "bold yellow"))
    if view.to_act == s.seat:
        parts.append(("TO ACT", "bold black on yellow"))
    if s.folded:
        parts.append(("folded", "dim"))
    if s.all_in:
        parts.append(("ALL-IN", "bold magenta"))
    if s.sitting_out:
        parts.append(("sitting out", "dim"))
    out = Text()
    for i, (t, style) in enumerate(parts):
        if i:
            out.append(" ")
        out.append(t, style=style)
    return out


def seats_table(view: TableView, *, reveal: bool = False) -> Table:
    """Tabulate the seats: player, stack, bet, cards, status.

    ``reveal`` (the surveillance screen) shows the hole cards the feed carries.
    """
    t = Table(box=box.SIMPLE_HEAD, expand=False, pad_edge=False)
    t.add_column("seat", justify="right")
    t.add_column("player")
    t.add_column("stack", justify="right")
    t.add_column("bet", justify="right")
    t.add_column("cards")
    t.add_column("")
    for s in view.seats:
        if s.shown:
            cards = Text(" ").join(card_text(c) for c in s.shown)
        elif reveal and s.hole:
            cards = Text(" ").join(card_text(c) for c in s.hole)
            if s.folded:
                cards.stylize("dim")
        elif s.has_cards and not s.folded:
            cards = Text("▒▒ ▒▒", style="blue")
        else:
            cards = Text("")
        style = "dim" if s.folded or s.sitting_out else ""
        t.add_row(str(s.seat), Text(s.player or "—", style=style), _chips(s.stack),
                  _chips(s.bet) if s.bet else "", cards, _seat_status(s, view))
    return t


def _pots_text(view: TableView) -> Text:
    out = Text("Pot ", style="bold")
    if not view.pots:
        out.append("0")
    for i, p in enumerate(view.pots):
        if i:
            out.append("  ·  ")
        name = "main" if i == 0 else f"side {i}"
        out.append(f"{name} {_chips(p.amount)}" if len(view.pots) > 1 else _chips(p.amount))
    bets = sum(s.bet for s in view.seats)
    if bets:
        out.append(f"   (bets out {_chips(bets)})", style="dim")
    return out


def _recent(lines: Sequence[str], title: str, style: str, n: int) -> Panel:
    shown = list(lines)[-n:] or ["—"]
    return Panel(Text("\n".join(shown), style=style), title=title, title_align="left",
                 box=box.ROUNDED)


def render_public(view: TableView) -> RenderableType:
    """Render the players' screen (never hole cards)."""
    parts: list[RenderableType] = [_header(view, "public")]
    for banner in (_connection_banner(view), _public_hold_banner(view)):
        if banner is not None:
            parts.append(banner)
    board = Text("Board  ", style="bold")
    board.append_text(board_text(view.board))
    parts += [board, _pots_text(view), seats_table(view)]
    if view.to_act is not None:
        who = next((s.player for s in view.seats if s.seat == view.to_act), "")
        parts.append(Text(f"Action on seat {view.to_act}" + (f" ({who})" if who else ""),
                          style="bold yellow"))
    parts.append(_recent(view.announcements, "announcements", "", 4))
    return Group(*parts)


def render_dealer(view: TableView, *, role: str = "dealer") -> RenderableType:
    """Render the dealer's screen: the prompt, big and clear, and what comes next.

    ``role="surveillance"``: the same screen with every hole card the feed carries.
    """
    parts: list[RenderableType] = [_header(view, role)]
    for banner in (_connection_banner(view), _hold_banner(view)):
        if banner is not None:
            parts.append(banner)
    if view.prompt is not None:
        body = Text(view.prompt.text.upper(), style="bold white", justify="center")
        label = "NOW" + (f"  (prompt {view.prompt.id})" if view.prompt.id is not None else "")
        parts.append(Panel(body, title=label, box=box.DOUBLE, style="bold cyan", padding=(1, 2)))
    else:
        parts.append(Panel(Text("no prompt: waiting for the table", justify="center",
                                style="dim"), title="NOW", box=box.DOUBLE, padding=(1, 2)))
    if view.expected_next and (view.prompt is None or view.expected_next != view.prompt.text):
        parts.append(Text(f"Table expects: {view.expected_next}", style="cyan"))
    board = Text("Board  ", style="bold")
    board.append_text(board_text(view.board))
    board.append("    ")
    board.append_text(_pots_text(view))
    parts += [board, seats_table(view, reveal=role == "surveillance")]
    if view.alerts:
        parts.append(_recent(view.alerts, "alerts", "bold red", 4))
    parts.append(_recent(view.announcements, "announcements", "", 3))
    parts.append(_devices_line(view))
    return Group(*parts)


def _devices_line(view: TableView) -> Text:
    out = Text("devices ", style="dim")
    if not view.devices:
        out.append("—", style="dim")
    for i, (name, state) in enumerate(view.devices):
        if i:
            out.append("  ")
        out.append(f"{name}: {state}", style=_LINK_STYLE.get(state, ""))
    out.append(f"   feed seq {view.seq}", style="dim")
    return out


def _floor_row(view: TableView) -> list[Text]:
    link = view.connection
    conn = Text(link, style=_LINK_STYLE.get(link, ""))
    devices = Text()
    for i, (name, state) in enumerate(view.devices):
        if i:
            devices.append(" ")
        devices.append(f"{name}:{state}", style=_LINK_STYLE.get(state, ""))
    alerts = Text()
    current = view.alerts if view.open_alerts is None else view.open_alerts
    if view.holds:
        alerts.append("HOLD " + "; ".join(view.holds), style="bold white on red")
    elif current:
        alerts.append(current[-1], style="red")
        if len(current) > 1:
            alerts.append(f" (+{len(current) - 1} more)", style="red")
    return [Text(view.table or "?", style="bold"),
            Text("—" if view.hand is None else str(view.hand)),
            Text(view.stage.replace("_", " ") or "—"),
            Text(_chips(view.pot_total)),
            alerts, devices or Text("—", style="dim"), conn]


_FLOOR_COLUMNS = (("table", "left"), ("hand", "right"), ("stage", "left"), ("pot", "right"),
                  ("alerts / holds", "left"), ("devices", "left"), ("feed", "left"))
#: With a table that ships its journal: one more column.
_SHIPPING_COLUMN = ("journal", "left")
#: The columns that wrap when the screen is narrow, by position, with their narrowest width
#: (alerts and holds, the devices, the journal's shipping line); the others are short.
_WRAPPING = {4: 14, 5: 9, 7: 12}

#: The shipper's states in the floor's words (``docs/messages.md``, ``shipping``).
SHIPPING_WORDS = {"caught_up": "caught up", "shipping": "shipping", "starting": "starting",
                  "retrying": "store unreachable, retrying", "refused": "REFUSED (verify)",
                  "stopped": "shipper stopped", "silent": "shipper not running",
                  "unknown": "no shipper status"}


def shipping_cell(view: TableView) -> Text:
    """Return the floor's shipping line of a table: the shipper's state and how far behind.

    >>> shipping_cell(TableView(shipping={"status": "retrying", "behind": 412})).plain
    'store unreachable, retrying · 412 behind'
    >>> shipping_cell(TableView()).plain
    '—'
    """
    s = view.shipping
    if s is None:
        return Text("—", style="dim")
    status = str(s.get("status"))
    out = Text(SHIPPING_WORDS.get(status, status))
    behind = s.get("behind")
    if isinstance(behind, int) and not isinstance(behind, bool) and behind > 0:
        out.append(f" · {behind:,} behind")
    trouble = shipping_trouble(s)
    out.stylize("bold red" if trouble else "green" if status in ("caught_up", "shipping")
                else "dim")
    return out


class FloorLines:
    """The floor's rows as lines of padded cells, cheap to draw for hundreds of tables.

    Looks like a ``rich`` table (header, rule, one line per table, the alerts column wrapping
    within the width), but measures each cell once, as plain text: a ``rich.table.Table`` of
    200 rows took some 0.4 s a frame to lay out, stalling the feeds of a busy floor.
    """

    def __init__(self, rows: Sequence[Sequence[Text]], title: str,
                 columns: Sequence[tuple[str, str]] = _FLOOR_COLUMNS) -> None:
        self.rows = rows
        self.title = title
        self.columns = tuple(columns)
        self._gap = "   "

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        columns = self.columns
        widths = [len(head) for head, _ in columns]
        least = {i: max(m, len(columns[i][0])) for i, m in _WRAPPING.items()
                 if i < len(widths)}
        for row in self.rows:
            for i, cell in enumerate(row):
                widths[i] = max(widths[i], cell.cell_len)
                if i in least:  # a word is never cut in two
                    least[i] = max(least[i], *(len(w) for w in cell.plain.split()), 0)
        # three spaces between columns, two when the screen is too narrow for three
        gap = 3 if _fit(list(widths), options.max_width, least, 3) else 2
        _fit(widths, options.max_width, least, gap)
        self._gap = " " * gap
        total = sum(widths) + gap * (len(widths) - 1) + 4
        out = Text(no_wrap=True, overflow="crop")
        out.append(self.title.center(total).rstrip() + "\n", style="italic")
        heads = [Text(head, style="bold") for head, _ in columns]
        for line in _wrapped(console, heads, widths):
            self._line(out, line, widths)
        out.append(" " + "━" * (total - 2) + "\n")
        for row in self.rows:
            for line in _wrapped(console, row, widths):
                self._line(out, line, widths)
        out.rstrip()
        yield out

    def _line(self, out: Text, line: Sequence[Text], widths: Sequence[int]) -> None:
        out.append("  ")
        for i, cell in enumerate(line):
            (_, just), w = self.columns[i], widths[i]
            pad = " " * max(0, w - cell.cell_len)
            if just == "right":
                out.append(pad)
            out.append_text(cell)
            if just != "right" and i < len(line) - 1:
                out.append(pad)
            if i < len(line) - 1:
                out.append(self._gap)
        out.rstrip()
        out.append("\n")


def _fit(widths: list[int], room: int, least: Mapping[int, int], gap: int) -> bool:
    """Narrow the wrapping columns (widest first, not under ``least``) to fit ``room``.

    :returns: whether the line fits now.
    """
    over = 2 + sum(widths) + gap * (len(widths) - 1) - room
    while over > 0:
        shrinkable = [i for i, m in least.items() if widths[i] > m]
        if not shrinkable:
            return False
        widths[max(shrinkable, key=lambda i: widths[i])] -= 1
        over -= 1
    return True


def _wrapped(console: Console, row: Sequence[Text], widths: Sequence[int]) -> list[list[Text]]:
    """Return the lines of one row: each cell wider than its column wrapped under itself."""
    cells = [list(c.wrap(console, widths[i])) if c.cell_len > widths[i] else [c]
             for i, c in enumerate(row)]
    height = max(len(c) for c in cells)
    return [[c[k] if k < len(c) else Text(" " * widths[i]) for i, c in enumerate(cells)]
            for k in range(height)]


def render_floor(views: Sequence[TableView], title: str = "Floor") -> RenderableType:
    """Render one line per table: hand, stage, pot, alerts and holds, devices, feed link.

    When a table ships its journal, one more column: its shipping line (:func:`shipping_cell`).
    """
    ordered = sorted(views, key=lambda v: v.table)
    ships = any(v.shipping is not None for v in views)
    rows = [_floor_row(v) + ([shipping_cell(v)] if ships else []) for v in ordered]
    columns = _FLOOR_COLUMNS + ((_SHIPPING_COLUMN,) if ships else ())
    t = FloorLines(rows, title, columns)
    held = sum(1 for v in views if v.holds)
    lost = sum(1 for v in views if v.connection == "lost")
    stale = sum(1 for v in views if v.connection == "stale")
    troubled = sum(1 for v in views if shipping_trouble(v.shipping))
    n = len(views)
    behind = f" · {stale} behind (stale)" if stale else ""
    shipping = f" · {troubled} not shipping" if troubled else ""
    summary = Text(f"{n} table{'s' if n != 1 else ''} · {held} on hold · {lost} not heard "
                   f"from{behind}{shipping}", style="bold red" if held or lost else
                   "yellow" if stale or troubled else "dim")
    return Group(t, summary)


def render(role: str, views: Sequence[TableView]) -> RenderableType:
    """Render the screen of ``role`` (``public``, ``dealer``, ``surveillance`` or ``floor``)."""
    if role == "floor":
        return render_floor(views)
    view = views[0] if views else TableView()
    if role in ("dealer", "surveillance"):
        return render_dealer(view, role=role)
    return render_public(view)
