"""``table-controller console``: a line-oriented dealer console for a person at a terminal.

Each line is one command: its name, then its arguments in the order of
:data:`table_controller.feeds.messages.COMMANDS` (a trailing text argument takes the rest of the
line; ``name=value`` sets an argument by name)::

    fold 3            call 3           raise 3 400        bet 3 200       all_in 3
    start             seat 3 Alice 10000                  hold chip count does not match
    resume            confirm          resolve 2 chips recounted, count correct
    status            retry            help               quit

Commands go through :class:`~table_controller.feeds.commands.CommandClient` (timeout, resend with
the same sequence number, reconnect); ``retry`` resends the last unanswered command with its seq.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from table_controller.feeds.commands import CommandClient

ALIASES = {
    "allin": "all_in", "all-in": "all_in", "buyin": "buy_in", "buy-in": "buy_in",
    "sitout": "sit_out", "sit-out": "sit_out", "sitin": "sit_in", "sit-in": "sit_in",
    "raise_to": "raise",
}
INT_KINDS = ("seat", "chips", "id")


class LineError(ValueError):
    """A console line that is not a command."""


def parse_line(line: str) -> dict[str, Any]:
    """Turn a console line into a command body.

    >>> parse_line("raise 3 400")
    {'command': 'raise', 'seat': 3, 'to': 400}
    >>> parse_line("hold chip count does not match")
    {'command': 'hold', 'reason': 'chip count does not match'}
    >>> parse_line("resolve 2 recounted")
    {'command': 'resolve', 'irregularity': 2, 'note': 'recounted'}

    :raises LineError: on an unknown command or a bad argument (the message says which).
    """
    from table_controller.feeds.messages import COMMANDS, CommandError, parse_command

    tokens = line.split()
    if not tokens:
        raise LineError("empty line")
    name = ALIASES.get(tokens[0].lower(), tokens[0].lower())
    if name not in COMMANDS:
        raise LineError(f"unknown command {tokens[0]!r}; type 'help' for the list")
    specs, _ = COMMANDS[name]
    kinds = {s[0]: s[1] for s in specs}
    body: dict[str, Any] = {"command": name}
    rest: list[str] = []
    for tok in tokens[1:]:
        key, eq, value = tok.partition("=")
        if eq and key in kinds and key not in body:
            body[key] = value
        else:
            rest.append(tok)
    for i, (arg, kind, required) in enumerate(specs):
        if not rest:
            break
        if arg in body:
            continue
        if kind in INT_KINDS and not required and not rest[0].lstrip("-").isdigit():
            continue
        if kind == "text" and i == len(specs) - 1:
            body[arg] = " ".join(rest)
            rest = []
        else:
            body[arg] = rest.pop(0)
    if rest:
        raise LineError(f"{name}: too many arguments: {' '.join(rest)!r}")
    for arg, kind in kinds.items():
        if arg in body and kind in INT_KINDS:
            try:
                body[arg] = int(body[arg])
            except ValueError:
                raise LineError(f"{name}.{arg}: must be a number, got {body[arg]!r}") from None
    try:
        parse_command(body)
    except CommandError as exc:
        raise LineError(str(exc)) from None
    return body


def help_text() -> str:
    """Return the list of commands with their arguments."""
    from table_controller.feeds.messages import COMMANDS

    lines = ["commands (arguments in order; text arguments take the rest of the line):"]
    for name, (specs, summary) in COMMANDS.items():
        args = " ".join(f"<{a}>" if req else f"[{a}]" for a, _, req in specs)
        lines.append(f"  {name} {args}".rstrip().ljust(36) + f" {summary}")
    lines.append("  retry".ljust(36) + " resend the last unanswered command (same seq)")
    lines.append("  help, quit")
    return "\n".join(lines)


def _show_reply(body: Mapping[str, Any], accepted: bool, reason: str,
                result: Mapping[str, Any], replayed: bool) -> str:
    args = " ".join(f"{k}={v}" for k, v in body.items() if k != "command")
    head = f"{body['command']}{' ' + args if args else ''}"
    tag = "OK" if accepted else "REFUSED"
    out = f"{tag}: {head}"
    if reason:
        out += f" - {reason}"
    if replayed:
        out += " (answer from the record: already applied once)"
    if result:
        out += "\n  " + json.dumps(dict(result), sort_keys=True)
    return out


class ConsoleSession:
    """One console session: turns lines into commands and replies into text."""

    def __init__(self, client: CommandClient) -> None:
        self.client = client
        self.pending: tuple[int, dict[str, Any]] | None = None
        self.refused = 0
        self.unanswered = 0

    async def handle_line(self, line: str) -> str | None:
        """Run one line; return the text to print (``None`` = quit)."""
        from table_controller.feeds.messages import CommandTimeout

        word = line.strip().lower()
        if not word or word.startswith("#"):
            return ""
        if word in ("quit", "exit"):
            return None
        if word == "help":
            return help_text()
        if word == "retry":
            if self.pending is None:
                return "nothing to retry"
            seq, body = self.pending
        else:
            try:
                body = parse_line(line)
            except LineError as exc:
                self.refused += 1
                return f"? {exc}"
            seq = self.client.reserve_seq()
        try:
            reply = await self.client.resend(seq, body)
        except CommandTimeout as exc:
            self.pending = (seq, body)
            self.unanswered += 1
            return (f"NO ANSWER: {exc}. The command may or may not have been applied; "
                    f"type 'retry' to resend it (same seq {seq}: it is never applied twice).")
        self.pending = None
        if not reply.accepted:
            self.refused += 1
        return _show_reply(body, reply.accepted, reply.reason, reply.result, reply.replayed)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``console`` subcommand."""
    p = subparsers.add_parser(
        "console",
        help="dealer console: type commands (fold 3, raise 3 400, start, hold ...)",
        description="A line-oriented dealer console. Type 'help' for the commands.",
    )
    p.add_argument("--connect", help="command endpoint, e.g. tcp://127.0.0.1:5566")
    p.add_argument("--config", type=Path, help="table configuration (endpoint, table id)")
    p.add_argument("--table", help="table id (default: from --config, else T1)")
    p.add_argument("--key", type=Path, help="this console's secret key file (NAME.key_secret)")
    p.add_argument("--server-key", type=Path, help="the daemon's public key file (server.key)")
    p.add_argument("--id", dest="console_id", help="console id (default: host-pid)")
    p.add_argument("--timeout", type=float, default=None, help="seconds before a resend (2.5)")
    p.add_argument("--retries", type=int, default=3, help="sends before giving up (3)")
    p.add_argument("-c", "--command", action="append", default=[],
                   help="run this command and exit (repeatable)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the console; returns 0, or 1 on a setup error or a refused / unanswered command."""
    import zmq.asyncio

    from table_controller.errors import TableError
    from table_controller.feeds.commands import CommandClient
    from table_controller.feeds.security import ClientKeys

    endpoint, table, timeout = args.connect, args.table, args.timeout
    try:
        if args.config is not None:
            from table_controller.config import load_config

            cfg = load_config(args.config)
            endpoint = endpoint or cfg.endpoints.commands
            table = table or cfg.table.id
            timeout = timeout or cfg.timing.command_timeout
        if not endpoint:
            print("console: give --connect ENDPOINT or --config FILE", file=sys.stderr)
            return 1
        keys = None
        if args.key is not None or args.server_key is not None:
            if args.key is None or args.server_key is None:
                print("console: CURVE needs both --key and --server-key", file=sys.stderr)
                return 1
            keys = ClientKeys.from_files(args.key, args.server_key)
        console_id = args.console_id or (
            f"{socket.gethostname()}-{os.getpid()}-{os.urandom(2).hex()}"
        )
        ctx = zmq.asyncio.Context()
        loop = asyncio.new_event_loop()
        try:
            client = CommandClient(ctx, endpoint, table_id=table or "T1", console_id=console_id,
                                   keys=keys, timeout=timeout or 2.5, retries=args.retries)
            session = ConsoleSession(client)
            if args.command:
                for line in args.command:
                    out = loop.run_until_complete(session.handle_line(line))
                    if out is None:
                        break
                    print(out, flush=True)
                return 1 if session.refused or session.unanswered else 0
            print(f"console {console_id} -> {endpoint} (table {table or 'T1'}); type 'help'")
            while True:
                try:
                    line = input("table> ")
                except EOFError:
                    break
                out = loop.run_until_complete(session.handle_line(line))
                if out is None:
                    break
                if out:
                    print(out, flush=True)
            return 0
        finally:
            loop.run_until_complete(client.close())
            loop.close()
            ctx.destroy(linger=0)
    except TableError as exc:
        print(f"console: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
