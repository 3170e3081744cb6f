"""Journal checkpoints in the central store (real PostgreSQL): shipped, verified, not hands.

A ``checkpoint`` entry is written between hands (no hand number) and carries the whole table
state as JSON: it must ship like any entry, verify against the table's journal (its jsonb copy
included), and stay out of the hand search, the recall of the hands around it and the counts.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg

from table_controller.central.query import find_hands, hand_record, verify
from table_controller.central.shipper import Shipper
from table_controller.journal import EntryKind, Journal
from table_controller.journal.recall import format_hand
from tests.central.tables import TAGS, FakeTable

EXE = str(Path(sys.executable).with_name("table-controller"))


def big_state(n: int) -> dict[str, Any]:
    """A checkpoint-like state of ``n`` reads and more, with the values JSON makes awkward."""
    return {
        "core": {"seats": {str(s): {"player": f"Zoë «{s}» 李", "stack": 10**15 + s,
                                    "history": [[i, i * 0.1, None, True] for i in range(40)]}
                           for s in range(1, 11)}},
        "reads": [{"uid": f"04{i:012X}", "at": 1_800_000_000.123456 + i, "slot": i % 7}
                  for i in range(n)],
        "floats": [0.30000000000000004, 1e-7, -0.0, 1.5e300, 2.5e-300, 123456789.0],
        "nested": {"a": {"b": {"c": {"d": [[], {}, "", "\\\"quoted\\\"", "tab\tnewline\n"]}}}},
    }


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EXE, *args], capture_output=True, text=True, timeout=120,
                          check=False)


def test_a_large_checkpoint_ships_verifies_and_is_no_hand(tmp_path: Path, pg_url: str) -> None:
    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        table = FakeTable(journal)
        table.play_hand()
        table.play_hand(irregularity="exposed_card")
        cp = journal.append_checkpoint(big_state(2500), wall_time=table.clock + 1, mono_time=1e6)
        table.clock += 2
        table.play_hand()
        last = journal.last_seq
        size = len(journal.get(cp.seq).payload["state"]["reads"])
    s = Shipper(path, "T1", pg_url, resolve=TAGS.get, batch=7)
    try:
        assert s.ship_pending() == last
    finally:
        s.close()
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT kind, hand, length(payload_text), payload->'state'->'reads' "
                           "FROM entries WHERE table_id = 'T1' AND seq = %s",
                           (cp.seq,)).fetchone()
        assert row is not None and row[0] == "checkpoint" and row[1] is None
        assert row[2] > 100_000 and len(row[3]) == size
        result = verify(conn, "T1", journal_path=path)
        assert result.ok, result.problems
        assert result.entries == last
        # not a hand: the search, the hands' rows and the recall around it are the table's
        hands = find_hands(conn, table="T1")
        assert [h.hand for h in hands] == [1, 2, 3]
        assert [h.hand for h in find_hands(conn, irregularity="exposed_card")] == [2]
        with Journal.open(path, readonly=True) as journal:
            for hand in (2, 3):
                central = hand_record(conn, "T1", hand)
                assert all(e.kind is not EntryKind.CHECKPOINT for e in central.entries)
                assert format_hand(central) == format_hand(journal.hand_entries(hand))
        n_hands = conn.execute("SELECT count(*) FROM hands WHERE table_id = 'T1'").fetchone()
        assert n_hands is not None and n_hands[0] == 3

        # the checkpoint's jsonb copy altered (a value surveillance would query): caught
        conn.execute("UPDATE entries SET payload = jsonb_set(payload, '{state,floats,0}', "
                     "'0.3') WHERE table_id = 'T1' AND seq = %s", (cp.seq,))
        conn.commit()
        result = verify(conn, "T1", journal_path=path)
        assert result.problems == [f"entry {cp.seq}: payload (jsonb) differs from the hashed "
                                   "text (altered)"]
        # its hashed text altered too: the hash says so
        conn.execute("UPDATE entries SET payload_text = replace(payload_text, "
                     "'1800000000.123456', '1800000009.123456') "
                     "WHERE table_id = 'T1' AND seq = %s", (cp.seq,))
        conn.commit()
        problems = verify(conn, "T1", journal_path=path).problems
        assert problems == [f"entry {cp.seq}: content does not match its hash (altered)"]


def test_a_demo_journal_with_a_checkpoint_through_the_cli(tmp_path: Path, pg_url: str) -> None:
    from table_controller.simtable.demo import run_demo

    out = tmp_path / "out"
    summary = asyncio.run(run_demo(hands=11, fast=True, seed=7, table_id="TC1", live=False,
                                   out=out))
    assert summary.hands_played == 11
    journal_path = out / "journal.db"
    with Journal.open(journal_path, readonly=True) as journal:
        checkpoints = [e for e in journal.entries() if e.kind is EntryKind.CHECKPOINT]
        assert [e.payload["hand"] for e in checkpoints] == [10]  # every 10 hands
        local = {n: format_hand(journal.hand_entries(n)) for n in (10, 11)}
        last = journal.last_seq
    shipped = run("central", "ship", "--journal", str(journal_path), "--table", "TC1",
                  "--url", pg_url, "--once")
    assert shipped.returncode == 0, shipped.stderr
    checked = run("central", "verify", "--url", pg_url, "--table", "TC1", "--journal",
                  str(journal_path))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"{last} entries, chain verified, against {journal_path}" in checked.stdout
    found = run("central", "hands", "--url", pg_url, "--table", "TC1", "--json")
    assert found.returncode == 0, found.stderr
    assert [json.loads(line)["hand"] for line in found.stdout.splitlines()] == list(
        range(1, 12))
    for n in (10, 11):  # the hands either side of the checkpoint
        recalled = run("central", "recall", "--url", pg_url, "--table", "TC1", "--hand", str(n))
        assert recalled.returncode == 0, recalled.stderr
        assert recalled.stdout.rstrip("\n") == local[n]
        assert "checkpoint" not in recalled.stdout
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT count(*) FROM entries WHERE table_id = 'TC1' AND kind = "
                           "'checkpoint' AND hand IS NULL").fetchone()
        assert row is not None and row[0] == 1


def test_a_nul_character_in_an_entry_ships_and_verifies(tmp_path: Path, pg_url: str) -> None:
    """PostgreSQL's jsonb refuses ``\\u0000``: the entry ships, its hashed text exact."""
    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        table = FakeTable(journal)
        table.play_hand()
        odd = journal.append_command("console\x00one", 1, {"cmd": "seat", "name": "A\x00B"},
                                     {"ok": True, "text": "seated A\x00B"},
                                     wall_time=table.clock + 1, mono_time=1e6)
        table.clock += 2
        table.play_hand()
        last = journal.last_seq
    s = Shipper(path, "T1", pg_url, resolve=TAGS.get, batch=5)
    try:
        assert s.ship_pending() == last  # not stuck on the entry, retrying for ever
    finally:
        s.close()
    with psycopg.connect(pg_url) as conn:
        row = conn.execute("SELECT payload_text, payload::text FROM entries "
                           "WHERE table_id = 'T1' AND seq = %s", (odd.seq,)).fetchone()
        assert row is not None
        assert "A\\u0000B" in row[0] and "A\ufffdB" in row[1]
        result = verify(conn, "T1", journal_path=path)
        assert result.ok, result.problems
        assert result.entries == last
        assert [h.hand for h in find_hands(conn, table="T1")] == [1, 2]
