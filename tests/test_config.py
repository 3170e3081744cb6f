from __future__ import annotations

import contextlib
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.config import ControllerConfig, load_config, loads_config, parse_config
from table_controller.errors import ConfigError

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "table.toml"


def _example() -> dict[str, Any]:
    with EXAMPLE.open("rb") as f:
        return tomllib.load(f)


def _parse(data: dict[str, Any], base: Path = Path("/base")) -> ControllerConfig:
    return parse_config(data, base_dir=base)


def test_example_loads() -> None:
    cfg = load_config(EXAMPLE)
    assert cfg.table.id == "T1" and cfg.table.seats == 9
    assert cfg.stakes.big_blind == 100 and cfg.stakes.small_blind == 50
    assert cfg.rake.percent == 5.0 and cfg.rake.cap == 500 and cfg.rake.no_flop_no_drop
    assert cfg.devices.all_simulated
    assert cfg.keys.security == "none"
    assert cfg.endpoints.commands.startswith("tcp://127.0.0.1:")
    assert cfg.journal.path.is_absolute()
    assert cfg.timing.heartbeat_interval == 1.0
    with pytest.raises(AttributeError):
        cfg.table.seats = 3  # type: ignore[misc]


def test_relative_paths_resolve_against_file(tmp_path: Path) -> None:
    text = EXAMPLE.read_text().replace(
        'path = "~/.local/state/table-controller/T1/journal.db"', 'path = "var/j.db"'
    )
    p = tmp_path / "t.toml"
    p.write_text(text)
    cfg = load_config(p)
    assert cfg.journal.path == tmp_path.resolve() / "var" / "j.db"


@pytest.mark.parametrize(
    ("section", "key", "value", "message"),
    [
        ("stakes", "big_blind", -5, "stakes.big_blind: must be > 0, got -5"),
        ("stakes", "small_blind", 500, "stakes.small_blind: must be <= big_blind (100), got 500"),
        ("stakes", "ante", True, "stakes.ante: must be an integer, got True"),
        ("stakes", "bb_ante", 100, "stakes.bb_ante: cannot be combined with ante"),
        ("table", "seats", 11, "table.seats: must be <= 10, got 11"),
        ("table", "seats", 1, "table.seats: must be >= 2, got 1"),
        ("table", "seats", "9", "table.seats: must be an integer, got '9'"),
        ("table", "id", "a b", "table.id: letters"),
        ("rake", "percent", 101, "rake.percent: must be <= 100.0, got 101"),
        ("rake", "cap", -1, "rake.cap: must be >= 0, got -1"),
        ("rake", "no_flop_no_drop", "yes", "rake.no_flop_no_drop: must be true or false"),
        ("devices", "shoe", "usb://x", "devices.shoe: must be a URL starting with"),
        ("devices", "camera", "sim://shoe", "devices.camera: simulated device must be"),
        ("endpoints", "public", "tcp://127.0.0.1", "endpoints.public: must be tcp://HOST:PORT"),
        ("endpoints", "dealer", "tcp://127.0.0.1:70000", "endpoints.dealer: port must be"),
        ("endpoints", "dealer", "tcp://127.0.0.1:5561", "endpoints.dealer: same endpoint as"),
        ("keys", "security", "maybe", "keys.security: must be \"curve\" or \"none\""),
        ("timing", "heartbeat_interval", 0, "timing.heartbeat_interval: must be >= 0.01, got 0"),
        ("timing", "heartbeat_timeout", 0.5, "timing.heartbeat_timeout: must be > 1.0, got 0.5"),
        ("journal", "path", "", "journal.path: must be a non-empty string"),
    ],
)
def test_bad_values(section: str, key: str, value: object, message: str) -> None:
    data = _example()
    if section == "stakes" and key == "bb_ante":
        data["stakes"]["ante"] = 10
    data[section][key] = value
    with pytest.raises(ConfigError) as info:
        _parse(data)
    assert message in str(info.value)


def test_unknown_key_and_section() -> None:
    data = _example()
    data["stakes"]["big_bind"] = 100
    with pytest.raises(ConfigError, match=r"stakes\.big_bind: unknown key \(did you mean 'big_bl"):
        _parse(data)
    data = _example()
    data["stake"] = {}
    with pytest.raises(ConfigError, match=r"stake: unknown section \(did you mean \[stakes\]"):
        _parse(data)


def test_missing() -> None:
    data = _example()
    del data["stakes"]["big_blind"]
    with pytest.raises(ConfigError, match=r"stakes\.big_blind: missing"):
        _parse(data)
    data = _example()
    del data["devices"]
    with pytest.raises(ConfigError, match=r"devices: missing section"):
        _parse(data)
    data = _example()
    data["table"] = 3
    with pytest.raises(ConfigError, match=r"table: must be a table"):
        _parse(data)


def test_security_none_only_with_sim() -> None:
    data = _example()
    data["devices"]["shoe"] = "serial:///dev/ttyUSB0?baud=115200"
    data["calibration"] = {"decks_dir": "decks", "active_deck": "red", "chip_zones": "z.toml"}
    with pytest.raises(ConfigError, match=r"keys\.security: \"none\" is only.*devices\.shoe"):
        _parse(data)


def test_real_devices_need_calibration() -> None:
    data = _example()
    data["devices"]["chips"] = "serial:///dev/ttyUSB1"
    with pytest.raises(ConfigError, match=r"calibration\.decks_dir: required with real devices"):
        _parse(data)


def test_curve_keys_must_exist(tmp_path: Path) -> None:
    data = _example()
    data["keys"] = {
        "security": "curve",
        "server_secret_key": "keys/server.key_secret",
        "displays_dir": "keys/displays",
        "consoles_dir": "keys/consoles",
    }
    with pytest.raises(ConfigError, match=r"keys\.server_secret_key: no such file"):
        _parse(data, tmp_path)
    (tmp_path / "keys" / "displays").mkdir(parents=True)
    (tmp_path / "keys" / "consoles").mkdir()
    (tmp_path / "keys" / "server.key_secret").write_text("x")
    cfg = _parse(data, tmp_path)
    assert cfg.keys.security == "curve"
    assert cfg.keys.displays_dir == tmp_path / "keys" / "displays"


def test_file_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\nid=")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(bad)
    bad.write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(bad)


# --- fuzz: the loader never fails with anything but ConfigError ----------------------------

scalars = (
    st.none().map(lambda _: "x") | st.booleans() | st.integers(-(2**63), 2**63 - 1)
    | st.floats() | st.text(max_size=30)
    | st.sampled_from(["sim://shoe", "tcp://127.0.0.1:1", "ipc:///tmp/x", "~nouser_zz/x", "curve"])
)
values = st.recursive(
    scalars,
    lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=10), c, max_size=3),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=300))
def test_fuzz_random_text(text: str) -> None:
    with contextlib.suppress(ConfigError):
        loads_config(text, base_dir=Path("/base"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_mutated_example(data: st.DataObject) -> None:
    doc = _example()
    for _ in range(data.draw(st.integers(1, 4))):
        section = data.draw(st.sampled_from([*sorted(doc), "extra"]))
        if section not in doc or not isinstance(doc[section], dict):
            doc[section] = data.draw(values)
            continue
        keys = [*sorted(doc[section]), "new_key"]
        key = data.draw(st.sampled_from(keys))
        if data.draw(st.booleans()) and key in doc[section]:
            del doc[section][key]
        else:
            doc[section][key] = data.draw(values)
    with contextlib.suppress(ConfigError):
        _parse(doc)


def test_example_endpoints_feed_the_hub() -> None:
    from table_controller.feeds import FeedEndpoints

    cfg = load_config(EXAMPLE)
    eps = FeedEndpoints.from_config(cfg.endpoints)
    assert eps.public == cfg.endpoints.public
    assert eps.surveillance_snapshot == cfg.endpoints.surveillance_snapshot
