"""``table-controller console``: a line-oriented dealer console for a person at a terminal.

Each line is one command: its name, then its arguments in the order of
:data:`table_controller.feeds.messages.COMMANDS` (a trailing text argument takes the rest of the
line; ``name=value`` sets an argument by name)::

    fold 3            call 3           raise 3 400        bet 3 200       all_in 3
    start             seat 3 Alice 10000                  hold chip count does not match
    resume            confirm          resolve 2 chips recounted, count correct
    status            retry            help               quit

Interactive use has line editing (arrows, Ctrl-A/E, ...), a history kept across sessions
(``--history FILE``, default under ``$XDG_STATE_HOME``), Tab completion of command and argument
names and a "did you mean" for a mistyped command (prompt_toolkit). ``status`` is shown as a few
readable lines. Piped input and ``-c`` read plain lines.

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
from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from table_controller.cli.console_text import (
    LineError,
    completions,
    format_status,
    help_text,
    parse_line,
)

if TYPE_CHECKING:
    from prompt_toolkit import PromptSession

    from table_controller.feeds.console_client import CommandClient

__all__ = ["ConsoleSession", "LineError", "help_text", "parse_line", "register", "run"]


def _result_text(body: Mapping[str, Any], result: Mapping[str, Any]) -> str:
    if body.get("command") == "status":
        return format_status(result)
    return json.dumps(dict(result), sort_keys=True)


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
        out += "\n  " + _result_text(body, result).replace("\n", "\n  ")
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


def history_path(given: Path | None) -> Path:
    """Return where the console keeps its history."""
    if given is not None:
        return given
    base = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return Path(base) / "table-controller" / "console-history"


def prompt_session(history: Path | None, **kwargs: Any) -> PromptSession[str]:
    """Build the interactive line editor: history file, Tab completion, Emacs keys.

    A history file that cannot be written (a read-only home) falls back to memory.
    """
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import CompleteEvent, Completer, Completion
    from prompt_toolkit.document import Document
    from prompt_toolkit.history import FileHistory, History, InMemoryHistory

    class CommandCompleter(Completer):
        """Complete command names, then argument names (``name=``)."""

        def get_completions(self, document: Document,
                            complete_event: CompleteEvent) -> Iterator[Completion]:
            before = document.text_before_cursor
            words = before.split()
            partial = "" if before.endswith(" ") or not words else words[-1]
            for word in completions(before):
                yield Completion(word, start_position=-len(partial))

    hist: History
    path = history_path(history)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(exist_ok=True)
        hist = FileHistory(str(path))
    except OSError as exc:
        print(f"console: history not kept ({path}: {exc.strerror})", file=sys.stderr)
        hist = InMemoryHistory()
    return PromptSession(history=hist, completer=CommandCompleter(),
                         complete_while_typing=False, **kwargs)


async def interactive(handle: Callable[[str], Awaitable[str | None]],
                      editor: PromptSession[str]) -> None:
    """Read lines with the editor until ``quit``, Ctrl-D or Ctrl-C."""
    while True:
        try:
            line = await editor.prompt_async("table> ")
        except (EOFError, KeyboardInterrupt):
            return
        out = await handle(line)
        if out is None:
            return
        if out:
            print(out, flush=True)


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
    p.add_argument("--history", type=Path, default=None,
                   help="file keeping the typed commands across sessions (default: "
                        "$XDG_STATE_HOME/table-controller/console-history)")
    p.add_argument("-c", "--command", action="append", default=[],
                   help="run this command and exit (repeatable)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the console; return 0, 1 (a setup error, a refused or unanswered command) or 2.

    2 is a bad endpoint.
    """
    import zmq.asyncio

    from table_controller.errors import TableError
    from table_controller.feeds.console_client import CommandClient
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
            if sys.stdin.isatty() and sys.stdout.isatty():
                loop.run_until_complete(interactive(session.handle_line,
                                                        prompt_session(args.history)))
            else:
                for line in sys.stdin:
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
    except zmq.ZMQError as exc:
        why = str(exc.strerror).split(" (addr=")[0]
        print(f"console: cannot connect to {endpoint!r}: {why} (an endpoint looks like "
              "tcp://127.0.0.1:5566)", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
