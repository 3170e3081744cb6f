"""``table-controller replay [--json] PATH...``: replay PHH hand histories through our engine.

For each hand: the file, our finishing stacks, the file's ``finishing_stacks`` and whether they
match. Odd-chip differences (a fractional split in the file that our whole-chip split explains) are
a status of their own, listed apart, not mismatches. A summary line comes last. Exit status 0 only
when nothing mismatched and nothing was illegal (or unreadable).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

from table_controller.phh import (
    ERROR,
    MATCHED,
    MISMATCHED,
    NO_EXPECTED,
    ODD_CHIP,
    Number,
    PhhError,
    ReplayError,
    ReplayResult,
    iter_paths,
    load,
    replay,
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``replay`` subcommand."""
    parser = subparsers.add_parser(
        "replay",
        help="replay PHH hand histories through the rules engine and check finishing stacks",
        description=(
            "Replay PHH files (or folders of them, recursively) through the rules engine and "
            "compare our finishing stacks with each file's finishing_stacks."
        ),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a .phh file or a folder")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.set_defaults(handler=run)


def _number(value: Number) -> int | float:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _numbers(values: Sequence[Number] | None) -> list[int | float] | None:
    return None if values is None else [_number(v) for v in values]


def replay_file(path: Path) -> ReplayResult:
    """Load and replay one file; every problem comes back inside the result."""
    try:
        hh = load(path)
    except PhhError as exc:
        return ReplayResult(ERROR, None, None, error=exc)
    except OSError as exc:
        return ReplayResult(ERROR, None, None, error=ReplayError(None, "io", str(exc)))
    return replay(hh)


def _error_dict(result: ReplayResult) -> dict[str, str | None] | None:
    err = result.error
    if err is None:
        return None
    if isinstance(err, PhhError):
        return {"action": None, "rule": "phh", "message": str(err)}
    return err.to_dict()


def result_dict(path: Path, result: ReplayResult) -> dict[str, Any]:
    """Return the JSON object of one hand (keys ``file``, ``finishing_stacks``, ...)."""
    out: dict[str, Any] = {
        "file": str(path),
        "finishing_stacks": _numbers(result.finishing_stacks),
        "expected": _numbers(result.expected),
        "match": result.match,
        "error": _error_dict(result),
        "status": result.status,
    }
    if result.status == ODD_CHIP:
        out["odd_chip"] = True
    if result.differences:
        out["differences"] = {f"p{p}": _number(d) for p, d in result.differences.items()}
    return out


def _text_line(path: Path, result: ReplayResult) -> str:
    ours = _numbers(result.finishing_stacks)
    expected = _numbers(result.expected)
    if result.status == ERROR:
        err = _error_dict(result) or {}
        action = f" at {err['action']!r}" if err.get("action") else ""
        return f"{path}: ERROR{action}: [{err.get('rule')}] {err.get('message')}"
    label = {
        MATCHED: "match",
        ODD_CHIP: "odd-chip difference",
        MISMATCHED: "MISMATCH",
        NO_EXPECTED: "no finishing_stacks in file",
    }[result.status]
    line = f"{path}: {label}: ours {ours} file {expected}"
    if result.differences:
        diffs = ", ".join(f"p{p} {_number(d):+}" for p, d in result.differences.items())
        line += f" ({diffs})"
    return line


def _results(paths: Sequence[str]) -> Iterator[tuple[Path, ReplayResult]]:
    for path in iter_paths(paths):
        yield path, replay_file(path)


def summary(counts: Counter[str]) -> dict[str, int]:
    """Return the summary counts, in a fixed order."""
    return {
        "hands": sum(counts.values()),
        "matched": counts[MATCHED],
        "odd_chip": counts[ODD_CHIP],
        "mismatched": counts[MISMATCHED],
        "errors": counts[ERROR],
        "no_expected": counts[NO_EXPECTED],
    }


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Replay every file named in ``args.paths``; return the exit status."""
    stream = out if out is not None else sys.stdout
    counts: Counter[str] = Counter()
    odd: list[str] = []
    try:
        for path, result in _results(args.paths):
            counts[result.status] += 1
            if args.json:
                stream.write(json.dumps(result_dict(path, result)) + "\n")
            else:
                line = _text_line(path, result)
                stream.write(line + "\n")
                if result.status == ODD_CHIP:
                    odd.append(line)
    except FileNotFoundError as exc:
        print(f"table-controller replay: {exc}", file=sys.stderr)
        return 2
    totals = summary(counts)
    if args.json:
        stream.write(json.dumps({"summary": totals}) + "\n")
    else:
        if odd:
            stream.write(f"odd-chip differences ({len(odd)}, whole-chip splits, not mismatches):\n")
            for line in odd:
                stream.write(f"  {line}\n")
        stream.write(
            f"summary: {totals['hands']} hands, {totals['matched']} matched, "
            f"{totals['odd_chip']} odd-chip differences, {totals['mismatched']} mismatched, "
            f"{totals['errors']} errors, {totals['no_expected']} without finishing_stacks\n"
        )
    stream.flush()
    return 0 if totals["mismatched"] == 0 and totals["errors"] == 0 else 1
