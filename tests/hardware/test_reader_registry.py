"""The PN532 card reader and the RFID chip reader are opened by URL like every device."""

from __future__ import annotations

import pytest

from hardware.base import open_chip_sensor, open_shoe
from hardware.pn532.driver import Pn532Shoe
from hardware.rfidchips.driver import RfidChipReader
from table_controller.errors import ConfigError


def test_real_reader_urls_pick_the_drivers() -> None:
    shoe = open_shoe("pn532:///dev/ttyUSB0?baud=115200")
    chips = open_chip_sensor("rfidchips:///dev/ttyUSB1")
    assert isinstance(shoe, Pn532Shoe) and isinstance(chips, RfidChipReader)


def test_simulated_readers_come_through_the_same_registry() -> None:
    shoe = open_shoe("sim://pn532")
    chips = open_chip_sensor("sim://rfidchips?zones=3")
    try:
        assert isinstance(shoe, Pn532Shoe) and isinstance(chips, RfidChipReader)
    finally:
        for dev in (shoe, chips):
            peer = getattr(dev, "peer", None)
            if peer is not None:
                peer.close()


@pytest.mark.parametrize("url", ["pn532:///dev/ttyUSB0?bogus=1", "rfidchips:///dev/x?baud=abc"])
def test_a_bad_option_is_one_line_naming_it(url: str) -> None:
    opener = open_shoe if url.startswith("pn532") else open_chip_sensor
    with pytest.raises(ConfigError) as info:
        opener(url)
    assert "\n" not in str(info.value)


def test_only_reference_link_devices_say_they_speak_the_link() -> None:
    """The daemon asks for HELLO, waits for it and defers ACKs only where this is True."""
    assert not open_shoe("pn532:///dev/ttyUSB0").speaks_link
    assert open_chip_sensor("rfidchips:///dev/ttyUSB1").speaks_link
    assert open_shoe("serial:///dev/ttyUSB2").speaks_link
