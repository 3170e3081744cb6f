"""Build small journals and judge what a damaged copy does: refused, harmless, or accepted."""

from __future__ import annotations

import enum
import random
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from table_controller.errors import JournalError
from table_controller.journal import EntryKind, Journal, thaw
from table_controller.journal.compact import deflate

WRITER = r"""
import os, sys
from table_controller.journal import Journal, EntryKind
sys.path.insert(0, sys.argv[3])
from damage import fill
j = Journal.open(sys.argv[1])
fill(j, int(sys.argv[2]), start=j.last_hand)
os._exit(0)  # as a kill -9 would: no close, no checkpoint, the WAL stays
"""


def fill(j: Journal, hands: int, *, start: int = 0) -> None:
    """Append ``hands`` hands: events, commands with replies (padded), holds."""
    rnd = random.Random(start)
    for h in range(start, start + hands):
        t = 1_700_000_000.0 + h * 100
        j.append(EntryKind.HAND_START, {"text": f"hand {h + 1}"}, wall_time=t, mono_time=t)
        for i in range(12):
            j.append(EntryKind.DEVICE_EVENT,
                     {"input": {"type": "card_read", "uid": f"{rnd.getrandbits(56):014x}",
                                "i": i}, "pad": "x" * rnd.randrange(40, 400)},
                     wall_time=t + i, mono_time=t + i)
        for c in range(3):
            j.append_command(f"c{c}", h * 10 + c, {"command": "call", "seat": c + 1},
                             {"accepted": c != 2, "reason": "" if c != 2 else "not your turn",
                              "result": {"n": h}}, wall_time=t + 20 + c, mono_time=t + 20 + c)
        j.append(EntryKind.HAND_END, {"text": "end"}, wall_time=t + 30, mono_time=t + 30)


def write_in_child(path: Path, hands: int) -> None:
    """Append ``hands`` hands in a child process that exits without closing (WAL kept)."""
    subprocess.run([sys.executable, "-c", WRITER, str(path), str(hands),
                    str(Path(__file__).parent)], check=True, timeout=120)


@dataclass(frozen=True)
class Reference:
    """What an intact journal holds: every entry's hash, every command's reply, every hand."""

    hashes: tuple[str, ...]
    replies: dict[tuple[str, int], dict[str, object]]
    hands: tuple[tuple[int, ...], ...]


def reference(path: Path) -> Reference:
    """Read an intact journal fully."""
    with Journal.open(path, readonly=True) as j:
        return _read(j)


def _read(j: Journal) -> Reference:
    hashes = tuple(e.hash for e in j.entries())
    replies: dict[tuple[str, int], dict[str, object]] = {}
    for e in j.entries():
        if e.kind is EntryKind.DEALER_COMMAND:
            key = (str(e.payload["console"]), int(e.payload["seq"]))
            reply = j.reply_for(*key)
            assert reply is not None
            replies[key] = reply
            stored = j.stored_command(*key)
            assert stored is not None and thaw(stored[0]) == thaw(e.payload["command"])
    hands = tuple(tuple(x.seq for x in r.entries) for r in j.recent_hands(10_000)) \
        if j.last_hand else ()
    return Reference(hashes, replies, hands)


class Outcome(enum.Enum):
    """What opening a damaged copy did."""

    REFUSED = "refused at open"
    REFUSED_LATER = "opened, refused on a read"
    HARMLESS = "opened, everything as before"
    SILENT = "opened, something changed: ACCEPTED SILENTLY"
    CRASHED = "crashed (not a JournalError)"


def judge(path: Path, ref: Reference, *, readonly: bool = False) -> tuple[Outcome, str]:
    """Open ``path`` and read everything back; compare with ``ref``."""
    try:
        j = Journal.open(path, readonly=readonly)
    except JournalError as exc:
        return Outcome.REFUSED, str(exc)
    except Exception as exc:
        return Outcome.CRASHED, repr(exc)
    try:
        got = _read(j)
        if (got.hashes != ref.hashes or got.replies != ref.replies or got.hands != ref.hands
                or j.last_seq != len(ref.hashes)):
            return Outcome.SILENT, f"{len(got.hashes)} entries, {len(ref.hashes)} expected"
        return Outcome.HARMLESS, ""
    except JournalError as exc:
        return Outcome.REFUSED_LATER, str(exc)
    except Exception as exc:
        return Outcome.CRASHED, repr(exc)
    finally:
        j.close()


def stored_json(path: Path, payload_json: str) -> str | bytes:
    """Return ``payload_json`` as the journal at ``path`` stores a payload (by its schema)."""
    with Journal.open(path, readonly=True, anchored=False) as j:
        schema = j.schema
    return deflate(payload_json) if schema == 2 else payload_json


def copy_journal(src: Path, dest_dir: Path) -> Path:
    """Copy a journal with its WAL and anchor into ``dest_dir``; return the copy's path."""
    dest_dir.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm", ".anchor"):
        s = Path(f"{src}{suffix}")
        if s.exists():
            shutil.copy2(s, dest_dir / f"{src.name}{suffix}")
    return dest_dir / src.name


def flip(path: Path, offset: int, bit: int) -> None:
    """Flip one bit of a file in place."""
    with open(path, "r+b") as f:
        f.seek(offset)
        b = f.read(1)[0]
        f.seek(offset)
        f.write(bytes([b ^ (1 << bit)]))
