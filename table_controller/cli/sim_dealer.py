"""``table-controller sim dealer --dir DIR``: practise dealing on the real daemon, by keys.

It shows the daemon's current prompt (polled with ``status`` every :data:`POLL` seconds, so a
new prompt appears without a key) and reads one line at a time:

=====  ==================================================================================
``d``  draw a card (``d Ah``: that card; else the next of the shuffle); a board card is laid
       on the board once the daemon has read it (at the next prompt)
``b``  put the blind the prompt asks for in front of the seat
``c``  collect: every bet into the pot zone
``p``  push: the award's chips off the pot zone (to the winner); the board is swept
``n``  new hand: shuffle the shoe, then ``start``
``s``  confirm the showdown prompt
``q``  quit (so does the end of the input)
=====  ==================================================================================

Anything else is a dealer command, as the console takes it (``seat 1 Alice 10000``,
``call 2``, ``raise 1 400``); an action the daemon accepts puts the player's chips in front of
the seat at once, as a player pushes them forward. A key the prompt does not ask for is
refused with one line and changes nothing. The devices are those of ``sim run --dir DIR``
(its control socket), the daemon the one of ``DIR/table.toml``. ``docs/tutorial.md`` walks a
first hand.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from table_controller.errors import TableError

#: How often the daemon's prompt is looked at while nobody types (seconds).
POLL = 0.25
HELP = ("keys: d draw, b blind, c collect, p push, n new hand, s confirm show, "
        "q quit; or a dealer command (seat 1 Alice 10000, call 2, ...)")


#: The prompts (step kinds) each practice key fits; any other prompt refuses the key.
KEY_PROMPTS: Mapping[str, frozenset[str]] = {
    "d": frozenset({"deal_hole", "burn", "board"}), "b": frozenset({"post"}),
    "c": frozenset({"collect"}), "p": frozenset({"award"}), "s": frozenset({"show"}),
}
KEY_WORDS = {"d": "it draws a card when one is to be dealt",
             "b": "it puts down a blind when one is to be posted",
             "c": "it collects the bets when the prompt says so",
             "p": "it pushes a pot when the prompt says so",
             "s": "it confirms a showdown prompt"}


class KeyRefused(TableError):
    """A practice key that does not fit the current prompt (nothing was done)."""


class Practice:
    """The practice dealer's state: the felt as it laid it, what is still to lay."""

    def __init__(self, directory: Path, config: Path) -> None:
        from table_controller.config import load_config
        from table_controller.simtable.devices.control import ControlClient

        self.cfg = load_config(config)
        self.ctl = ControlClient(directory / "ctl.sock")
        self.dir = directory
        self.bets: dict[int, int] = {}
        self.pot = 0
        self.to_lay: list[tuple[int, str]] = []
        self.prompt: dict[str, Any] = {}

    def zones(self) -> tuple[Mapping[int, int], int]:
        """Return seat -> zone and the pot zone (the table's default chip layout)."""
        from calibration.chips import default_chip_config

        layout = default_chip_config(self.cfg.table.seats)
        return layout.seat_zones, layout.pot_zone

    def chips_on(self, seat: int, value: int) -> str:
        """Make the chips in front of ``seat`` worth ``value``."""
        seat_zones, _pot = self.zones()
        self.bets[seat] = value
        self.ctl("chips", seat_zones[seat], value)
        return f"{value} in front of seat {seat}"

    def lay_drawn(self) -> list[str]:
        """Lay the board cards the daemon has read (called when the prompt moved on)."""
        out = []
        for slot, card in self.to_lay:
            self.ctl("board", slot, card)
            out.append(f"laid {card} in board slot {slot}")
        self.to_lay.clear()
        return out

    def key(self, line: str, step: Mapping[str, Any]) -> str | None:
        """Do a practice key; return what was done, ``None`` if ``line`` is no key.

        :raises KeyRefused: for a key the prompt does not ask for (nothing changed).
        """
        word, _, rest = line.strip().partition(" ")
        kind = step.get("kind")
        if word in KEY_PROMPTS and kind not in KEY_PROMPTS[word]:
            raise KeyRefused(f"{word!r} does not fit this prompt ({KEY_WORDS[word]})")
        if word == "d":
            reply = self.ctl("draw", *rest.split())
            if kind == "board":
                self.to_lay.append((int(step["slot"]), reply["card"]))
            return f"drew {reply['card']} ({reply['left']} left in the shoe)"
        if word == "b":
            seat = int(step["seat"])
            return self.chips_on(seat, self.bets.get(seat, 0) + int(step["amount"]))
        if word == "c":
            _zones, pot_zone = self.zones()
            pots = step.get("pots")
            self.pot = sum(int(p["amount"]) for p in pots) if isinstance(pots, list) else \
                self.pot + sum(self.bets.values())
            for seat in list(self.bets):
                self.chips_on(seat, 0)
            self.ctl("chips", pot_zone, self.pot)
            return f"collected: {self.pot} in the pot"
        if word == "p":
            _zones, pot_zone = self.zones()
            amount = int(step.get("amount", self.pot))
            self.pot = max(0, self.pot - amount)
            self.ctl("chips", pot_zone, self.pot)
            for slot in range(5):
                self.ctl("board", slot, "empty")
            payouts = step.get("payouts")
            to = " and ".join(f"{v} to seat {k}" for k, v in payouts.items()) if isinstance(
                payouts, Mapping) else "the winner"
            rake = int(step.get("rake", 0))
            return f"pushed {to}{f', {rake} rake' if rake else ''}; board swept"
        return None


def _bet_after(body: Mapping[str, Any], legal: Mapping[str, Any]) -> int | None:
    """Return the chips in front of the seat after an action (``None``: not an action)."""
    bet = int(legal.get("bet", 0))
    name = body.get("command")
    if name in ("fold", "check"):
        return bet
    if name == "call":
        return bet + int(legal.get("call_amount", 0))
    if name == "all_in":
        return bet + int(legal.get("stack", 0))
    if name == "bet":
        return int(body.get("amount", 0))
    if name == "raise":
        return int(body.get("to", 0))
    return None


async def _session(directory: Path, config: Path) -> int:
    import zmq.asyncio

    from table_controller.cli.console_text import LineError, parse_line
    from table_controller.feeds import ClientKeys, CommandClient

    practice = Practice(directory, config)
    keys = None
    if (directory / "keys" / "console.key_secret").exists():
        keys = ClientKeys.from_files(directory / "keys" / "console.key_secret",
                                     directory / "keys" / "server.key")
    ctx = zmq.asyncio.Context()
    client = CommandClient(ctx, practice.cfg.endpoints.commands, table_id=practice.cfg.table.id,
                           console_id=f"practice-{os.getpid()}", keys=keys,
                           timeout=practice.cfg.timing.command_timeout)
    shown: object = None
    prompt: Mapping[str, Any] = {}
    lines = _stdin_lines()
    try:
        print(HELP, flush=True)
        while True:
            status = (await client.request({"command": "status"})).result
            now = status.get("prompt")
            prompt = now if isinstance(now, Mapping) else {}
            if prompt.get("id") != shown:
                shown = prompt.get("id")
                for done in practice.lay_drawn():
                    print(f"  {done}", flush=True)
                print(f"[{shown}] {prompt.get('text', '(no prompt)')}", flush=True)
            try:  # the prompt is shown again as soon as it changes, without a key
                line = await asyncio.wait_for(lines.get(), POLL)
            except TimeoutError:
                continue
            if not line or line.strip() == "q":
                return 0
            if not line.strip():
                continue
            step = prompt.get("step") if isinstance(prompt.get("step"), Mapping) else {}
            assert isinstance(step, Mapping)
            try:
                if line.strip() == "n":
                    practice.ctl("shuffle")
                    line = "start"
                elif line.strip() == "s":
                    practice.key("s", step)  # refused unless the prompt is a showdown
                    line = f"confirm {prompt.get('id')}"
                else:
                    done_key = practice.key(line, step)
                    if done_key is not None:
                        print(f"  {done_key}", flush=True)
                        continue
                body = parse_line(line)
            except (LineError, TableError) as exc:  # a refused key or line: say it, go on
                print(f"  refused: {exc}", flush=True)
                continue
            reply = await client.request(body)
            if not reply.accepted:
                print(f"  REFUSED: {reply.reason}", flush=True)
                continue
            print(f"  OK: {line.strip()}", flush=True)
            legal = step.get("legal")
            if step.get("kind") == "act" and isinstance(legal, Mapping):
                total = _bet_after(body, legal)
                seat = body.get("seat")
                if total is not None and isinstance(seat, int) and total != practice.bets.get(
                        seat, 0):  # the player's chips go forward as the action is called
                    print(f"  {practice.chips_on(seat, total)}", flush=True)
    finally:
        practice.ctl.close()
        await client.close()
        ctx.destroy(linger=0)


def _stdin_lines() -> asyncio.Queue[str]:
    """Return a queue of the lines of standard input (``""`` once it ends).

    A daemon thread reads them, so the session can show a new prompt while nobody types, and
    leaves without waiting for a line that never comes.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str] = asyncio.Queue()

    def read() -> None:
        while True:
            line = sys.stdin.readline()
            try:
                loop.call_soon_threadsafe(queue.put_nowait, line)
            except RuntimeError:  # the session ended (its loop is closed)
                return
            if not line:
                return

    threading.Thread(target=read, name="practice-keys", daemon=True).start()
    return queue


def run_practice(directory: Path, config: Path) -> int:
    """Run the practice dealer on stdin; return 0 (or 2 without ``sim run``/daemon)."""
    try:
        return asyncio.run(_session(directory, config))
    except OSError as exc:
        print(f"sim dealer: no 'sim run' at {directory}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
