"""What the daemon builds from the configuration before anything runs: the core and its calibration.

Rules this module keeps:

1. No simulator is imported here and no URL is inspected: what a device knows before it is
   opened (a simulated shoe's tags, a board file needing no camera profile) comes from its
   backend through :func:`hardware.base.device_defaults`, the registry a real device uses.
2. The configuration's calibration wins over a device's defaults.
"""

from __future__ import annotations

from calibration.chips import ChipConfig, default_chip_config, load_chip_config
from calibration.deck import DeckStore
from hardware.base import device_defaults
from table_controller.config import ControllerConfig
from table_controller.controller.core import TableCore
from table_controller.controller.house_rules import HouseRules
from table_controller.engine import Card, RakeRule, TableConfig
from table_controller.errors import ConfigError

#: Seconds a chip difference may last before it is an irregularity.
SETTLE = 1.5
#: Seconds the camera may take to show a board card the shoe dealt.
CAMERA_WINDOW = 3.0
#: Seconds past a camera window's end a slowed-down camera may still take before the window is
#: judged anyway (a camera that stopped polling still gives ``board_missing``).
CAMERA_LAG_LIMIT = 10.0


def table_config(config: ControllerConfig) -> TableConfig:
    """Build the engine's table configuration from the validated TOML configuration."""
    rake = None
    if config.rake.percent > 0:
        rake = RakeRule(round(config.rake.percent * 100), config.rake.cap or 10**12,
                        config.rake.no_flop_no_drop)
    s = config.stakes
    house = config.house_rules if config.house_rules is not None else HouseRules()
    return TableConfig(seats=config.table.seats, small_blind=s.small_blind, big_blind=s.big_blind,
                       ante=s.ante, bb_ante=s.bb_ante, rake=rake, **house.table_options())


def load_deck(config: ControllerConfig) -> dict[str, Card]:
    """Return the active deck profile (tag -> card), else the one the shoe's backend offers.

    :raises CalibrationError: if the deck profile is missing or invalid.
    :raises ConfigError: if there is no deck store and the shoe offers no deck profile.
    """
    cal = config.calibration
    if cal.decks_dir is not None:
        return dict(DeckStore(cal.decks_dir).active(cal.active_deck).cards)
    offered = device_defaults(config.devices.shoe, "shoe").deck_profile
    if offered is None:
        raise ConfigError(f"calibration.decks_dir: required for devices.shoe = "
                          f"{config.devices.shoe!r} (the device offers no deck profile)")
    return dict(offered)


def load_chips(config: ControllerConfig) -> ChipConfig:
    """Return the chip-sensor calibration (the default layout without ``chip_zones``).

    :raises CalibrationError: if the file is missing or invalid.
    """
    if config.calibration.chip_zones is not None:
        return load_chip_config(config.calibration.chip_zones)
    return default_chip_config(config.table.seats)


def camera_configured(config: ControllerConfig) -> bool:
    """Tell whether the daemon has a board source: a camera profile, or a self-calibrated source.

    :raises ConfigError: for a camera URL that does not parse.
    """
    if config.calibration.camera_profile is not None:
        return True
    return device_defaults(config.devices.camera, "board").self_calibrated


def build_core(config: ControllerConfig, settle: float = SETTLE) -> TableCore:
    """Build the core from the configuration (no I/O besides reading calibration files).

    :raises ConfigError, CalibrationError: for a configuration or calibration that is unusable.
    """
    from table_controller.controller.dealing import DealingRules

    registry = None
    if config.calibration.chip_registry is not None:
        from calibration.chip_registry import load_registry

        registry = load_registry(config.calibration.chip_registry)
    return TableCore(table_config(config), load_deck(config), load_chips(config), settle=settle,
                     camera_window=CAMERA_WINDOW if camera_configured(config) else None,
                     rules=DealingRules(config.house_rules), chip_registry=registry)
