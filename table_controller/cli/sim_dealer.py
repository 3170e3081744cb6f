"""``table-controller sim dealer --dir DIR``: practise dealing on the real daemon, by keys.

It shows the daemon's current prompt (polled with ``status``) and reads one line at a time:

=====  ==================================================================================
``d``  draw a card (``d Ah``: that card; else the next of the shuffle); a board card is laid
       on the board once the daemon has read it (at the next prompt)
``b``  put the chips the prompt (a blind) or the last action asks for in front of the seat
``c``  collect: every bet into the pot zone
``p``  push: the award's chips off the pot zone (to the winner); the board is swept
``n``  new hand: shuffle the shoe, then ``start``
``s``  confirm the showdown prompt
``q``  quit (so does the end of the input)
=====  ==================================================================================

Anything else is a dealer command, as the console takes it (``seat 1 Alice 10000``,
``call 2``, ``raise 1 400``). The devices are those of ``sim run --dir DIR`` (its control
socket), the daemon the one of ``DIR/table.toml``. ``docs/tutorial.md`` walks a first hand.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

HELP = ("keys: d draw, b bet/blind chips, c collect, p push, n new hand, s confirm show, "
        "q quit; or a dealer command (seat 1 Alice 10000, call 2, ...)")


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
        self.pending: tuple[int, int] | None = None
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
        """Do a practice key; return what was done, ``None`` if ``line`` is no key."""
        word, _, rest = line.strip().partition(" ")
        kind = step.get("kind")
        if word == "d":
            reply = self.ctl("draw", *rest.split())
            if kind == "board":
                self.to_lay.append((int(step["slot"]), reply["card"]))
            return f"drew {reply['card']} ({reply['left']} left in the shoe)"
        if word == "b":
            if kind == "post":
                seat = int(step["seat"])
                return self.chips_on(seat, self.bets.get(seat, 0) + int(step["amount"]))
            if self.pending is None:
                return "no bet to put down: enter the player's action first"
            seat, total = self.pending
            self.pending = None
            return self.chips_on(seat, total)
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
            return f"pushed {amount} to seat {step.get('seat')}; board swept"
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
    from table_controller.errors import TableError
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
    try:
        print(HELP, flush=True)
        while True:
            status = (await client.request({"command": "status"})).result
            prompt = status.get("prompt") if isinstance(status.get("prompt"), Mapping) else {}
            assert isinstance(prompt, Mapping)
            if prompt.get("id") != shown:
                shown = prompt.get("id")
                for done in practice.lay_drawn():
                    print(f"  {done}", flush=True)
                print(f"[{shown}] {prompt.get('text', '(no prompt)')}", flush=True)
            line = await asyncio.to_thread(sys.stdin.readline)
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
                if total is not None and isinstance(seat, int):
                    practice.pending = (seat, total)
                    print(f"  press b to put {total} in front of seat {seat}", flush=True)
    finally:
        practice.ctl.close()
        await client.close()
        ctx.destroy(linger=0)


def run_practice(directory: Path, config: Path) -> int:
    """Run the practice dealer on stdin; return 0 (or 2 without ``sim run``/daemon)."""
    try:
        return asyncio.run(_session(directory, config))
    except OSError as exc:
        print(f"sim dealer: no 'sim run' at {directory}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
