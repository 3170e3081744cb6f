"""The daemon's device set on a PN532 shoe: no HELLO asked, none waited for, nothing deferred."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

import pytest

from hardware.base import DeviceEvent, DeviceHello
from hardware.sim.pn532 import SimPn532
from hardware.sim.rfidchips import SimRfidChips
from table_controller.daemon.devices import DeviceSet


def test_a_pn532_shoe_is_not_waited_for_and_writes_at_once(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    pn532 = SimPn532(link_path=str(tmp_path / "shoe.tty"))
    rfid = SimRfidChips(range(1, 4), link_path=str(tmp_path / "chips.tty"))
    pn532.start()
    rfid.start()
    seen: list[tuple[str, DeviceEvent]] = []

    async def run() -> None:
        async with contextlib.AsyncExitStack() as stack:
            devices = DeviceSet(lambda n, e: seen.append((n, e)), lambda: None)
            devices.open_serial(stack, {"shoe": f"pn532://{pn532.path}?poll=0.02",
                                        "chips": f"rfidchips://{rfid.path}"}, 2.0)
            assert devices.devices["shoe"].defer_acks is False
            assert devices.devices["chips"].defer_acks is True
            # the chip reader's HELLO, asked for with an empty NAK, is what ready waits for;
            # the generous timeout is never reached (the PN532 has no HELLO to wait for)
            await devices.wait_synced(30.0)
            assert any(n == "chips" and isinstance(e, DeviceHello) for n, e in seen)
            pn532.present("04A1B2C3")
            async with asyncio.timeout(30.0):
                while not any(getattr(e, "uid", None) == "04A1B2C3" for _, e in seen):
                    await asyncio.sleep(0.01)

    try:
        with caplog.at_level(logging.WARNING):
            asyncio.run(run())
    finally:
        pn532.close()
        rfid.close()
    assert "no HELLO" not in caplog.text
