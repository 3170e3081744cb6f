"""What the dealer console reads and writes: lines to commands, replies and status to text.

Pure functions (no sockets, no terminal), shared by the interactive console and ``-c``:

- :func:`parse_line` turns ``seat 3 "Dan Smith" 10000`` into a command body. Words are split
  like a shell does (quotes keep a name with spaces together; an unquoted name of several
  words is taken whole when the other arguments leave no doubt, as in ``seat 3 Dan Smith
  10000``); ``name=value`` sets an argument by name; a trailing text argument takes the rest.
- An unknown command or argument name gets a "did you mean" from the known names.
- :func:`format_status` turns the ``status`` result into lines a dealer reads at a glance.
- :func:`completions` lists what may come next on a line (commands, then argument names).
"""

from __future__ import annotations

import difflib
import json
import shlex
from collections.abc import Iterator, Mapping
from typing import Any

ALIASES = {
    "allin": "all_in", "all-in": "all_in", "buyin": "buy_in", "buy-in": "buy_in",
    "sitout": "sit_out", "sit-out": "sit_out", "sitin": "sit_in", "sit-in": "sit_in",
    "raise_to": "raise",
}
INT_KINDS = ("seat", "chips", "id")
#: Words the console itself understands (not sent to the table).
LOCAL = ("help", "quit", "exit", "retry")


class LineError(ValueError):
    """A console line that is not a command."""


def _commands() -> Mapping[str, tuple[tuple[tuple[str, str, bool], ...], str]]:
    from table_controller.feeds.messages import COMMANDS

    return COMMANDS


def did_you_mean(word: str, known: list[str]) -> str:
    """Return ``"; did you mean 'x'?"`` for the closest known word, or ``""``."""
    close = difflib.get_close_matches(word.lower(), known, n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def split_words(line: str) -> list[str]:
    """Split a line into words as a shell does (quotes group words).

    :raises LineError: an unclosed quote.
    """
    try:
        return shlex.split(line, comments=False, posix=True)
    except ValueError as exc:  # "No closing quotation"
        raise LineError(f"cannot read the line: {str(exc).lower()}") from None


def parse_line(line: str) -> dict[str, Any]:
    """Turn a console line into a command body.

    >>> parse_line("raise 3 400")
    {'command': 'raise', 'seat': 3, 'to': 400}
    >>> parse_line("hold chip count does not match")
    {'command': 'hold', 'reason': 'chip count does not match'}
    >>> parse_line('seat 3 "Dan Smith" 10000')
    {'command': 'seat', 'seat': 3, 'player': 'Dan Smith', 'stack': 10000}
    >>> parse_line("seat 3 Dan Smith 10000")
    {'command': 'seat', 'seat': 3, 'player': 'Dan Smith', 'stack': 10000}

    :raises LineError: on an unknown command or a bad argument (the message says which).
    """
    from table_controller.feeds.messages import CommandError, parse_command

    commands = _commands()
    tokens = split_words(line)
    if not tokens:
        raise LineError("empty line")
    name = ALIASES.get(tokens[0].lower(), tokens[0].lower())
    if name not in commands:
        hint = did_you_mean(name, [*commands, *ALIASES, *LOCAL])
        raise LineError(f"unknown command {tokens[0]!r}{hint or '; type help for the list'}")
    specs, _ = commands[name]
    kinds = {s[0]: s[1] for s in specs}
    body: dict[str, Any] = {"command": name}
    rest: list[str] = []
    for tok in tokens[1:]:
        key, eq, value = tok.partition("=")
        if eq and key.isidentifier() and " " not in tok:
            if key not in kinds:
                hint = did_you_mean(key, list(kinds))
                raise LineError(f"{name}: no argument {key!r}{hint}")
            if key in body:
                raise LineError(f"{name}: {key} given twice")
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
        if kind == "text":
            # the words left for the arguments after this one (those not given by name)
            # (an optional text argument after a text is given by name: ``post=now``)
            after = [s for s in specs[i + 1:] if s[0] not in body
                     and (s[2] or s[1] != "text")]
            keep = len(after) if i < len(specs) - 1 else 0
            take = max(1, len(rest) - keep)
            body[arg] = " ".join(rest[:take])
            rest = rest[take:]
        else:
            body[arg] = rest.pop(0)
    if rest:
        raise LineError(f"{name}: too many arguments: {' '.join(rest)!r}")
    for arg, kind in kinds.items():
        if arg in body and kind in INT_KINDS and isinstance(body[arg], str):
            text = body[arg]
            if not text.lstrip("-").isdigit() or len(text) > 18:
                raise LineError(f"{name}.{arg}: must be a number, got {text!r}")
            body[arg] = int(text)
    try:
        parse_command(body)
    except CommandError as exc:
        raise LineError(str(exc)) from None
    return body


def help_text() -> str:
    """Return the list of commands with their arguments."""
    lines = ["commands (arguments in order; text arguments take the rest of the line;",
             "quote a name with spaces: seat 3 \"Dan Smith\" 10000):"]
    for name, (specs, summary) in _commands().items():
        args = " ".join(f"<{a}>" if req else f"[{a}]" for a, _, req in specs)
        lines.append(f"  {name} {args}".rstrip().ljust(36) + f" {summary}")
    lines.append("  retry".ljust(36) + " resend the last unanswered command (same seq)")
    lines.append("  help, quit")
    return "\n".join(lines)


def completions(before: str) -> Iterator[str]:
    """Yield the words that may complete the line typed so far (``before`` the cursor)."""
    commands = _commands()
    words = before.split()
    partial = "" if before.endswith(" ") or not words else words[-1]
    done = words if partial == "" else words[:-1]
    if not done:
        for name in (*commands, *LOCAL):
            if name.startswith(partial.lower()):
                yield name
        return
    name = ALIASES.get(done[0].lower(), done[0].lower())
    if name not in commands:
        return
    given = {w.partition("=")[0] for w in done[1:] if "=" in w}
    for arg, _kind, _required in commands[name][0]:
        if arg not in given and f"{arg}=".startswith(partial):
            yield f"{arg}="


def _money(n: object) -> str:
    return f"{n:,}" if isinstance(n, int) else str(n)


def format_status(result: Mapping[str, Any]) -> str:
    """Return the ``status`` result as lines a dealer reads at a glance.

    >>> print(format_status({"hand": 4, "hands_played": 3, "held": False, "holds": [],
    ...     "stacks": {"1": 9800, "3": 10200}, "chips_in_play": 20000, "rake_total": 0,
    ...     "prompt": {"id": 9, "text": "Deal the flop"}, "irregularities": [],
    ...     "devices": {"shoe": "ok", "chips": "ok", "camera": "unavailable"}}))
    hand 4 in progress (3 played) - playing
    prompt 9: Deal the flop
    stacks: seat 1 9,800 | seat 3 10,200   (chips in play 20,000, rake 0)
    devices: shoe ok, chips ok, camera unavailable
    irregularities: none open
    """
    hand = result.get("hand")
    played = result.get("hands_played", 0)
    head = f"hand {hand} in progress ({played} played)" if hand else \
        f"between hands ({played} played)"
    holds = [str(h) for h in result.get("holds") or []]
    head += " - HELD: " + "; ".join(holds) if result.get("held") else " - playing"
    lines = [head]
    prompt = result.get("prompt")
    if isinstance(prompt, Mapping):
        lines.append(f"prompt {prompt.get('id')}: {prompt.get('text')}")
    stacks = result.get("stacks") or {}
    if isinstance(stacks, Mapping) and stacks:
        seats = " | ".join(f"seat {s} {_money(v)}" for s, v in
                           sorted(stacks.items(), key=lambda kv: int(kv[0])))
        lines.append(f"stacks: {seats}   (chips in play {_money(result.get('chips_in_play'))},"
                     f" rake {_money(result.get('rake_total', 0))})")
    devices = result.get("devices") or {}
    if isinstance(devices, Mapping) and devices:
        lines.append("devices: " + ", ".join(f"{k} {v}" for k, v in devices.items()))
    irr = [i for i in result.get("irregularities") or [] if isinstance(i, Mapping)]
    open_ = [i for i in irr if not i.get("resolved")]
    if not open_:
        lines.append("irregularities: none open")
    for i in open_:
        lines.append(f"  irregularity {i.get('id')} ({i.get('kind')}): {i.get('text')}"
                     + (" [holds]" if i.get("hold") else ""))
    known = {"hand", "hands_played", "held", "holds", "prompt", "stacks", "chips_in_play",
             "rake_total", "devices", "irregularities"}
    for key in sorted(k for k in result if k not in known):
        value = result[key]
        text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        lines.append(f"{key}: {text}")
    return "\n".join(lines)
