"""Deck check through the board source and the daemon: journal, feeds, device health.

Real parts: rendered frames (``SimCamera``) read by a recognizer calibrated with the kennard faces
while the table shows svg-cards, the real stabiliser, the daemon's journal (SQLite) and its feed
hub on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import zmq.asyncio

from calibration.camera import calibrate_camera
from calibration.faces import load_face_folder
from hardware.base import DeviceEvent
from hardware.camera.stabilizer import BoardStabilizer
from hardware.sim.camera import SimCamera
from hardware.sim.faces import face_folder
from hardware.sim.scene import Level
from table_controller.controller.camera import (
    DECK_MISMATCH_LINK,
    BoardObserved,
    DeckMatched,
    DeckMismatch,
    FrameBoardSource,
)
from table_controller.controller.events import Announcement, Output
from table_controller.engine.cards import FULL_DECK, Card
from table_controller.feeds import Feed, FeedClient, FeedEndpoints, FeedEventKind, FeedHub
from table_controller.journal import EntryKind
from tests.controller.helpers import inprocess_daemon, journal_of
from tests.feeds.helpers import arun, next_kind

ROOT = Path(__file__).resolve().parents[2]
Faces = dict[Card, Any]

@pytest.fixture(scope="module")
def decks() -> dict[str, Faces]:
    return {"kennard": load_face_folder(face_folder("kennard")),
            "svg-cards": load_face_folder(ROOT / "examples" / "cards" / "svg-cards")}


class Table:
    """A simulated camera over the board, its source, and the daemon's in-process parts."""

    def __init__(self, tmp: Path, shown: Faces, registered: Faces, seed: int) -> None:
        self.cam = SimCamera(shown, url="sim://camera", level=Level.MEDIUM, seed=seed)
        self.cam.open()
        empty = self.cam.read_frame(0.0)
        assert empty is not None
        profile = calibrate_camera(empty, registered, design="kennard")
        self.source = FrameBoardSource(self.cam, profile.recognizer(), BoardStabilizer(frames=2),
                                       interval=0.0, design=profile.design)
        self.daemon = d = inprocess_daemon(tmp)
        d.publishing = True
        d.devices.camera = self.source
        self.now = 0.0
        self.events: list[DeviceEvent] = []
        deck = list(FULL_DECK)
        np.random.default_rng(seed).shuffle(deck)
        self.deck = deck

    def poll(self) -> list[DeviceEvent]:
        self.now += 0.1
        events = self.source.poll(self.now)
        self.daemon.camera_events(events)
        self.events.extend(events)
        truth = self.cam.board()
        for e in events:
            if isinstance(e, BoardObserved):
                # never a wrong card reported, before or after the alarm
                for slot, code in enumerate(e.slots):
                    card = truth[slot]
                    assert code is None or (card is not None and code == card.code), (e, truth)
        return events

    def deal(self, board: int) -> None:
        """Lay board ``board`` (five distinct cards of the shuffled deck), look twice, clear."""
        self.cam.clear()
        for slot, card in enumerate(self.deck[5 * (board % 10) : 5 * (board % 10) + 5]):
            self.cam.place(slot, card)
        self.poll()
        self.poll()

    def clear(self) -> None:
        self.cam.clear()
        self.poll()
        self.poll()

    def published(self) -> list[Output]:
        publisher = self.daemon.publisher
        assert publisher is not None
        return publisher.take_all()


def _boards_after(events: list[DeviceEvent], kind: type) -> list[BoardObserved]:
    i = next(i for i, e in enumerate(events) if isinstance(e, kind))
    return [e for e in events[i:] if isinstance(e, BoardObserved)]


def test_wrong_deck_alerts_the_floor_and_reports_no_card(tmp_path: Path,
                                                         decks: dict[str, Faces]) -> None:
    t = Table(tmp_path, decks["svg-cards"], decks["kennard"], seed=8201)
    d = t.daemon
    board = 0
    while t.source.mismatch is None:
        assert board < 4, f"no alarm after {board} boards: {t.source.deckfit.scores}"
        t.deal(board)
        board += 1
    alarms = [e for e in t.events if isinstance(e, DeckMismatch)]
    assert len(alarms) == 1
    alarm = alarms[0]
    assert alarm.cards >= 8 and alarm.median < 0.9
    assert alarm.text.startswith(
        "camera: the cards on the board do not match the registered deck design 'kennard' "
        f"(median match {alarm.median:.2f} over {alarm.cards} cards); check the deck or "
        "recalibrate the faces (table-controller calibrate camera --faces")
    # journaled (a decision entry, like link faults) ...
    alerts = [e for e in journal_of(d).entries()
              if e.kind is EntryKind.DECISION and "device_alert" in e.payload]
    assert [e.payload["text"] for e in alerts] == [alarm.text]
    assert alerts[0].payload["device_alert"] == {
        "device": "camera", "kind": "deck_mismatch", "median": alarm.median,
        "cards": alarm.cards, "link": DECK_MISMATCH_LINK}
    # ... then queued for the feeds as a device announcement
    out = t.published()
    notes = [o for o in out if isinstance(o, Announcement)]
    assert notes == [Announcement("device", alarm.text, {
        "device": "camera", "alert": "deck_mismatch", "median": alarm.median,
        "cards": alarm.cards, "link": DECK_MISMATCH_LINK})]
    # the device health the floor sees
    health = d.devices.statuses()["camera"]
    assert health.link == DECK_MISMATCH_LINK and health.last_error == alarm.text
    # fail-safe: from the alarm on, no card is reported; slots holding one are hidden
    t.deal(board)
    after = _boards_after(t.events, DeckMismatch)
    assert after and all(b.slots == (None,) * 5 for b in after)
    assert set(after[-1].occluded) == {0, 1, 2, 3, 4}
    assert d.core is not None and d.core.board_seen is not None
    assert d.core.board_seen.slots == (None,) * 5
    seen = [e.payload["text"] for e in journal_of(d).entries()
            if e.kind is EntryKind.DEVICE_EVENT]
    assert seen[-1] == "camera sees the board -- -- -- -- -- (slots 1, 2, 3, 4, 5 hidden)"
    t.clear()  # an empty board is still reported as empty
    assert t.events[-1] == BoardObserved((None,) * 5, ())
    # one alarm, not one per frame
    t.deal(board + 1)
    assert sum(isinstance(e, DeckMismatch) for e in t.events) == 1

    # the floor puts the registered deck on the table: the check clears, cards are read again
    t.published()
    t.cam.faces = dict(decks["kennard"])
    board += 2
    while t.source.mismatch is not None:
        assert board < 10, f"no recovery: {t.source.deckfit.scores}"
        t.deal(board)
        board += 1
    matched = [e for e in t.events if isinstance(e, DeckMatched)]
    assert len(matched) == 1 and matched[0].median >= 0.94
    assert matched[0].text.startswith(
        "camera: the cards on the board match the registered deck design 'kennard' again")
    notes = [o for o in t.published() if isinstance(o, Announcement)]
    assert [(n.text, n.data["alert"], n.data["link"]) for n in notes] == [
        (matched[0].text, "deck_matched", "ok")]
    assert d.devices.statuses()["camera"].link == "ok"
    assert d.devices.statuses()["camera"].last_error is None
    t.deal(board)
    last = [e for e in t.events if isinstance(e, BoardObserved)][-1]
    truth = tuple(c.code if c else None for c in t.cam.board())
    assert last.slots == truth and last.occluded == ()
    journal_of(d).close()


def test_right_deck_never_alerts(tmp_path: Path, decks: dict[str, Faces]) -> None:
    t = Table(tmp_path, decks["kennard"], decks["kennard"], seed=8202)
    for board in range(3):
        t.deal(board)
        truth = tuple(c.code if c else None for c in t.cam.board())
        assert [e for e in t.events if isinstance(e, BoardObserved)][-1].slots == truth
    assert not any(isinstance(e, DeckMismatch | DeckMatched) for e in t.events)
    assert t.source.deckfit.cards_seen >= 12
    assert t.daemon.devices.statuses()["camera"].link == "ok"
    journal_of(t.daemon).close()


def test_the_alert_reaches_the_feeds(tmp_path: Path, decks: dict[str, Faces]) -> None:
    t = Table(tmp_path, decks["svg-cards"], decks["kennard"], seed=8203)
    board = 0
    while t.source.mismatch is None:
        assert board < 4, f"no alarm after {board} boards: {t.source.deckfit.scores}"
        t.deal(board)
        board += 1
    alarm = t.source.mismatch
    out = t.published()

    async def body(ctx: zmq.asyncio.Context) -> None:
        async with FeedHub(ctx, table_id="T1", endpoints=FeedEndpoints.loopback(),
                           heartbeat_interval=0.05) as hub:
            publisher = t.daemon.publisher
            assert publisher is not None
            await publisher.send(hub, [], state=True)
            async with FeedClient(ctx, feed=Feed.DEALER, feed_endpoint=hub.bound["dealer"],
                                  snapshot_endpoint=hub.bound["snapshot"],
                                  table_id="T1") as client:
                await next_kind(client, FeedEventKind.SNAPSHOT)
                await asyncio.sleep(0.1)  # let the subscription reach the publisher
                await publisher.send(hub, out, state=True)
                got: dict[str, Any] = {}
                deadline = time.monotonic() + 30
                while len(got) < 2 and time.monotonic() < deadline:
                    ev, _ = await next_kind(client, FeedEventKind.UPDATE)
                    assert ev.message is not None
                    got[ev.message.type] = ev.message.data
        assert got["announcement"]["text"] == alarm.text
        assert got["announcement"]["alert"] == "deck_mismatch"
        state = got["table_state"]
        assert state["devices"]["camera"] == DECK_MISMATCH_LINK
        assert state["device_health"]["camera"]["last_error"] == alarm.text

    assert alarm is not None
    arun(body)
    journal_of(t.daemon).close()
    assert dataclasses.is_dataclass(alarm)
