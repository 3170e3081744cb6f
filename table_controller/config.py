"""The table's configuration: a TOML file loaded into frozen, typed, validated dataclasses.

Rules this module keeps:

1. Every value is range-checked as it is loaded. An unknown section or key, a missing key, a value
   of the wrong type or out of range raises :class:`~table_controller.errors.ConfigError` whose
   message names the key path and the value, e.g. ``stakes.big_blind: must be > 0, got -5``.
2. Nothing else escapes :func:`load_config` / :func:`loads_config`: unreadable files and bad TOML
   are reported as :class:`ConfigError` too.
3. Relative paths are resolved against the directory of the configuration file.
4. ``keys.security = "none"`` (no CURVE encryption or key allow-lists) is accepted only when every
   device is simulated (``sim://``): it is for development and tests.
5. Bounded: before any key is read, the document is checked to nest at most :data:`MAX_DEPTH`
   tables and arrays deep, with every integer ``|n| <=`` :data:`MAX_INT` (2**53 - 1) and every
   float finite; TOML too deep for the parser or an integer too long to convert is a
   :class:`ConfigError` as well. Any file is answered with a configuration or an error.

The full reference of keys is in ``docs/operations.md``; ``examples/table.toml`` is a working
configuration on simulated devices.
"""

from __future__ import annotations

import datetime
import difflib
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from table_controller.errors import ConfigError
from table_controller.journal.archive import parse_hour

if TYPE_CHECKING:
    from table_controller.controller.house_rules import HouseRules

MIN_SEATS = 2
MAX_SEATS = 10
#: Deepest nesting of tables and arrays accepted in a configuration document.
MAX_DEPTH = 16
#: Largest integer magnitude accepted anywhere in a configuration (2**53 - 1).
MAX_INT = 2**53 - 1

_TCP = re.compile(r"^tcp://(?P<host>[A-Za-z0-9.\-]+|\*|\[[0-9A-Fa-f:]+\]):(?P<port>\d{1,5}|\*)$")
_IPC = re.compile(r"^ipc://.+$")
_TABLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]{0,31}$")

#: URL schemes accepted for each device.
DEVICE_SCHEMES: Mapping[str, frozenset[str]] = {
    "shoe": frozenset({"serial", "lines", "pn532", "sim"}),
    "chips": frozenset({"serial", "rfidchips", "sim"}),
    "camera": frozenset({"camera", "sim"}),
}


@dataclass(frozen=True, slots=True)
class TableSection:
    """``[table]``: identity and size of the table."""

    id: str
    name: str
    seats: int


@dataclass(frozen=True, slots=True)
class StakesSection:
    """``[stakes]``: blinds and antes, in chips (integers)."""

    small_blind: int
    big_blind: int
    ante: int = 0
    bb_ante: int = 0


@dataclass(frozen=True, slots=True)
class RakeSection:
    """``[rake]``: house rake taken from each pot (``percent`` 0 = no rake)."""

    percent: float = 0.0
    cap: int = 0
    no_flop_no_drop: bool = True


@dataclass(frozen=True, slots=True)
class DevicesSection:
    """``[devices]``: device URLs (``serial://``, ``lines://``, ``pn532://``, ``rfidchips://``...).

    Also ``camera://...`` and ``sim://...``.
    """

    shoe: str
    chips: str
    camera: str

    @property
    def all_simulated(self) -> bool:
        """``True`` when every device is a ``sim://`` device."""
        return all(u.startswith("sim://") for u in (self.shoe, self.chips, self.camera))


@dataclass(frozen=True, slots=True)
class CalibrationSection:
    """``[calibration]``: calibration files; ``None`` = built-in defaults (simulated devices)."""

    decks_dir: Path | None = None
    active_deck: str | None = None
    chip_zones: Path | None = None
    camera_profile: Path | None = None
    #: RFID gaming chips: tag UID -> denomination (``calibrate chips register``); needed when
    #: the chip reader reports tags (``rfidchips://``) instead of counts
    chip_registry: Path | None = None


@dataclass(frozen=True, slots=True)
class EndpointsSection:
    """``[endpoints]``: ZeroMQ endpoints the daemon binds (``tcp://host:port`` or ``ipc://path``)."""

    public: str
    dealer: str
    surveillance: str
    snapshot: str
    surveillance_snapshot: str
    commands: str


@dataclass(frozen=True, slots=True)
class KeysSection:
    """``[keys]``: CURVE keys. With ``security = "none"`` the paths are not used."""

    security: Literal["curve", "none"]
    server_secret_key: Path | None = None
    displays_dir: Path | None = None
    consoles_dir: Path | None = None


@dataclass(frozen=True, slots=True)
class JournalSection:
    """``[journal]``: where the journal and the PHH hand histories are written.

    ``archive_at`` (``"HH:MM"``, local time, or ``"off"``, the default): the hour gaming days
    start; once one has ended the daemon archives its entries, between hands
    (:mod:`table_controller.journal.archiving`).
    """

    path: Path
    phh_dir: Path
    archive_at: datetime.time | None = None


@dataclass(frozen=True, slots=True)
class TimingSection:
    """``[timing]``: intervals and timeouts, in seconds."""

    heartbeat_interval: float = 1.0
    heartbeat_timeout: float = 3.0
    command_timeout: float = 2.5
    device_timeout: float = 2.0


@dataclass(frozen=True, slots=True)
class CentralSection:
    """``[central]`` (optional): ship the journal to the floor's PostgreSQL store."""

    url: str
    status_file: Path | None = None
    batch: int = 500


@dataclass(frozen=True, slots=True)
class ControllerConfig:
    """A whole, validated table configuration."""

    table: TableSection
    stakes: StakesSection
    rake: RakeSection
    devices: DevicesSection
    calibration: CalibrationSection
    endpoints: EndpointsSection
    keys: KeysSection
    journal: JournalSection
    timing: TimingSection
    source: Path | None = None
    #: ``[house_rules]`` (optional): the house's choices for dealing irregularities
    house_rules: HouseRules | None = None
    #: ``[central]`` (optional): the journal shipper's store; ``None`` = no shipping
    central: CentralSection | None = None


class _Section:
    """Reads the keys of one TOML table, remembering which were used."""

    def __init__(self, data: Mapping[str, Any], path: str, base: Path) -> None:
        self.data = data
        self.path = path
        self.base = base
        self.used: set[str] = set()

    def _key(self, key: str) -> str:
        return f"{self.path}.{key}"

    def _get(self, key: str, default: Any, required: bool) -> Any:
        self.used.add(key)
        if key not in self.data:
            if required:
                # a typo of the key is the usual cause: name the key that is there
                close = difflib.get_close_matches(key, [str(k) for k in self.data], n=1)
                hint = f"; {self.path}.{close[0]} is there: did you mean {key!r}?" \
                    if close else ""
                raise ConfigError(f"{self._key(key)}: missing (required){hint}")
            return default
        return self.data[key]

    def integer(
        self,
        key: str,
        *,
        default: int | None = None,
        minimum: int | None = None,
        maximum: int | None = None,
        above: int | None = None,
    ) -> int:
        v = self._get(key, default, default is None)
        if isinstance(v, bool) or not isinstance(v, int):
            raise ConfigError(f"{self._key(key)}: must be an integer, got {v!r}")
        if above is not None and v <= above:
            raise ConfigError(f"{self._key(key)}: must be > {above}, got {v}")
        if minimum is not None and v < minimum:
            raise ConfigError(f"{self._key(key)}: must be >= {minimum}, got {v}")
        if maximum is not None and v > maximum:
            raise ConfigError(f"{self._key(key)}: must be <= {maximum}, got {v}")
        return v

    def number(
        self,
        key: str,
        *,
        default: float | None = None,
        minimum: float | None = None,
        maximum: float | None = None,
        above: float | None = None,
    ) -> float:
        v = self._get(key, default, default is None)
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise ConfigError(f"{self._key(key)}: must be a finite number, got {v!r}")
        if above is not None and v <= above:
            raise ConfigError(f"{self._key(key)}: must be > {above}, got {v}")
        if minimum is not None and v < minimum:
            raise ConfigError(f"{self._key(key)}: must be >= {minimum}, got {v}")
        if maximum is not None and v > maximum:
            raise ConfigError(f"{self._key(key)}: must be <= {maximum}, got {v}")
        return float(v)

    def boolean(self, key: str, *, default: bool | None = None) -> bool:
        v = self._get(key, default, default is None)
        if not isinstance(v, bool):
            raise ConfigError(f"{self._key(key)}: must be true or false, got {v!r}")
        return v

    def string(self, key: str, *, default: str | None = None, required: bool = True) -> str:
        v = self._get(key, default, required and default is None)
        if not isinstance(v, str) or not v.strip():
            raise ConfigError(f"{self._key(key)}: must be a non-empty string, got {v!r}")
        return v

    def optional_string(self, key: str) -> str | None:
        if key not in self.data:
            self.used.add(key)
            return None
        return self.string(key)

    def path_value(self, key: str, *, required: bool = True) -> Path | None:
        if not required and key not in self.data:
            self.used.add(key)
            return None
        text = self.string(key)
        if "\x00" in text:
            raise ConfigError(f"{self._key(key)}: not a valid path, got {text!r}")
        try:
            p = Path(text).expanduser()
        except RuntimeError as exc:
            raise ConfigError(f"{self._key(key)}: {exc}, got {text!r}") from None
        return p if p.is_absolute() else self.base / p

    def required_path(self, key: str) -> Path:
        p = self.path_value(key)
        assert p is not None
        return p

    def finish(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            key = unknown[0]
            close = difflib.get_close_matches(key, sorted(self.used), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            known = ", ".join(sorted(self.used))
            raise ConfigError(
                f"{self._key(key)}: unknown key{hint}; known keys: {known}"
            )


def _section(data: Mapping[str, Any], name: str, base: Path, required: bool) -> _Section:
    if name not in data:
        if required:
            raise ConfigError(f"{name}: missing section [{name}]")
        return _Section({}, name, base)
    value = data[name]
    if not isinstance(value, Mapping):
        raise ConfigError(f"{name}: must be a table [{name}], got {value!r}")
    return _Section(value, name, base)


def _device_url(sec: _Section, key: str) -> str:
    url = sec.string(key)
    scheme, sep, rest = url.partition("://")
    allowed = DEVICE_SCHEMES[key]
    if not sep or scheme not in allowed or not rest:
        schemes = ", ".join(f"{s}://" for s in sorted(allowed))
        raise ConfigError(f"devices.{key}: must be a URL starting with {schemes}, got {url!r}")
    if scheme == "sim" and rest.split("?")[0] != key:
        raise ConfigError(f"devices.{key}: simulated device must be sim://{key}, got {url!r}")
    return url


def _endpoint(sec: _Section, key: str) -> str:
    ep = sec.string(key)
    m = _TCP.match(ep)
    if m:
        port = m.group("port")
        if port != "*" and not 1 <= int(port) <= 65535:
            raise ConfigError(f"endpoints.{key}: port must be 1..65535, got {ep!r}")
        return ep
    if _IPC.match(ep):
        return ep
    raise ConfigError(
        f"endpoints.{key}: must be tcp://HOST:PORT or ipc://PATH, got {ep!r}"
    )


def check_document(data: Mapping[str, Any]) -> None:
    """Check the nesting depth and the numbers of a whole document, without recursion.

    >>> check_document({"rake": {"percent": 10**400}})
    Traceback (most recent call last):
    ...
    table_controller.errors.ConfigError: rake.percent: integer out of range (|n| <= 2**53 - 1)

    :raises ConfigError: naming the key path of the first value beyond :data:`MAX_DEPTH`,
        :data:`MAX_INT` or a non-finite float.
    """
    stack: list[tuple[str, Any, int]] = [("", data, 0)]
    while stack:
        path, value, depth = stack.pop()
        where = path or "the document"
        if isinstance(value, Mapping | list):
            if depth >= MAX_DEPTH:
                raise ConfigError(f"{where}: nested deeper than {MAX_DEPTH}")
            items = value.items() if isinstance(value, Mapping) else enumerate(value)
            for k, v in items:
                key = f"{path}[{k}]" if isinstance(value, list) else (
                    f"{path}.{k}" if path else str(k))
                stack.append((key, v, depth + 1))
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            raise ConfigError(f"{where}: integer out of range (|n| <= 2**53 - 1)")
        elif isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(f"{where}: must be a finite number, got {value!r}")


def _parse_toml(text: str) -> dict[str, Any]:
    """:func:`tomllib.loads`, with every failure a :class:`ConfigError`."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"not valid TOML: nested deeper than {MAX_DEPTH}") from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise ConfigError(f"not valid TOML: {exc}") from None


def parse_config(data: Mapping[str, Any], *, base_dir: Path, source: Path | None = None) -> (
    ControllerConfig
):
    """Validate an already-parsed TOML document.

    :param data: the document (as returned by :func:`tomllib.loads`).
    :param base_dir: directory that relative paths are resolved against.
    :param source: the file it came from (kept in :attr:`ControllerConfig.source`).
    :raises ConfigError: naming the first bad key path and its value.
    """
    check_document(data)
    top = _Section(data, "", base_dir)

    def sec(name: str, required: bool = True) -> _Section:
        top.used.add(name)
        return _section(data, name, base_dir, required)

    s = sec("table")
    table_id = s.string("id")
    if not _TABLE_ID.match(table_id):
        raise ConfigError(
            f"table.id: letters, digits, '_' or '-' (1-32, starting with a letter or digit), "
            f"got {table_id!r}"
        )
    table = TableSection(
        id=table_id,
        name=s.string("name", default=table_id),
        seats=s.integer("seats", minimum=MIN_SEATS, maximum=MAX_SEATS),
    )
    s.finish()

    s = sec("stakes")
    big = s.integer("big_blind", above=0)
    small = s.integer("small_blind", above=0)
    if small > big:
        raise ConfigError(f"stakes.small_blind: must be <= big_blind ({big}), got {small}")
    ante = s.integer("ante", default=0, minimum=0)
    bb_ante = s.integer("bb_ante", default=0, minimum=0)
    if ante and bb_ante:
        raise ConfigError(f"stakes.bb_ante: cannot be combined with ante ({ante}), got {bb_ante}")
    stakes = StakesSection(small, big, ante, bb_ante)
    s.finish()

    s = sec("rake", required=False)
    rake = RakeSection(
        percent=s.number("percent", default=0.0, minimum=0.0, maximum=100.0),
        cap=s.integer("cap", default=0, minimum=0),
        no_flop_no_drop=s.boolean("no_flop_no_drop", default=True),
    )
    s.finish()

    s = sec("devices")
    devices = DevicesSection(
        shoe=_device_url(s, "shoe"), chips=_device_url(s, "chips"), camera=_device_url(s, "camera")
    )
    s.finish()

    s = sec("calibration", required=False)
    calibration = CalibrationSection(
        decks_dir=s.path_value("decks_dir", required=False),
        active_deck=s.optional_string("active_deck"),
        chip_zones=s.path_value("chip_zones", required=False),
        camera_profile=s.path_value("camera_profile", required=False),
        chip_registry=s.path_value("chip_registry", required=False),
    )
    s.finish()
    if (calibration.decks_dir is None) != (calibration.active_deck is None):
        raise ConfigError(
            "calibration.active_deck: decks_dir and active_deck go together, got "
            f"decks_dir={calibration.decks_dir!r}, active_deck={calibration.active_deck!r}"
        )
    if not devices.all_simulated:
        for name in ("decks_dir", "chip_zones"):
            if getattr(calibration, name) is None:
                raise ConfigError(f"calibration.{name}: required with real devices, got nothing")

    s = sec("endpoints")
    endpoints = EndpointsSection(
        public=_endpoint(s, "public"),
        dealer=_endpoint(s, "dealer"),
        surveillance=_endpoint(s, "surveillance"),
        snapshot=_endpoint(s, "snapshot"),
        surveillance_snapshot=_endpoint(s, "surveillance_snapshot"),
        commands=_endpoint(s, "commands"),
    )
    s.finish()
    seen: dict[str, str] = {}
    for name in ("public", "dealer", "surveillance", "snapshot", "surveillance_snapshot",
                 "commands"):
        ep = getattr(endpoints, name)
        if not ep.endswith(":*") and ep in seen:
            raise ConfigError(f"endpoints.{name}: same endpoint as endpoints.{seen[ep]}: {ep!r}")
        seen[ep] = name

    s = sec("keys")
    security = s.string("security")
    if security not in ("curve", "none"):
        raise ConfigError(f"keys.security: must be \"curve\" or \"none\", got {security!r}")
    if security == "curve":
        keys = KeysSection(
            security="curve",
            server_secret_key=s.required_path("server_secret_key"),
            displays_dir=s.required_path("displays_dir"),
            consoles_dir=s.required_path("consoles_dir"),
        )
        for name, want_dir in (("server_secret_key", False), ("displays_dir", True),
                               ("consoles_dir", True)):
            kp: Path = getattr(keys, name)
            ok = kp.is_dir() if want_dir else kp.is_file()
            if not ok:
                what = "directory" if want_dir else "file"
                raise ConfigError(f"keys.{name}: no such {what}, got {str(kp)!r}")
    else:
        if not devices.all_simulated:
            real = next(
                f"devices.{k} = {getattr(devices, k)!r}"
                for k in ("shoe", "chips", "camera")
                if not getattr(devices, k).startswith("sim://")
            )
            raise ConfigError(
                f"keys.security: \"none\" is only allowed with simulated (sim://) devices, "
                f"got {real}"
            )
        keys = KeysSection(
            security="none",
            server_secret_key=s.path_value("server_secret_key", required=False),
            displays_dir=s.path_value("displays_dir", required=False),
            consoles_dir=s.path_value("consoles_dir", required=False),
        )
    s.finish()

    s = sec("journal")
    archive_at = s.optional_string("archive_at")
    try:
        at = None if archive_at in (None, "off") else parse_hour(str(archive_at))
    except ValueError as exc:
        raise ConfigError(f"journal.archive_at: {exc} (or \"off\")") from None
    journal = JournalSection(path=s.required_path("path"), phh_dir=s.required_path("phh_dir"),
                             archive_at=at)
    s.finish()

    s = sec("timing", required=False)
    interval = s.number("heartbeat_interval", default=1.0, minimum=0.01, maximum=60.0)
    timing = TimingSection(
        heartbeat_interval=interval,
        heartbeat_timeout=s.number("heartbeat_timeout", default=3.0 * interval, above=interval),
        command_timeout=s.number("command_timeout", default=2.5, above=0.0, maximum=600.0),
        device_timeout=s.number("device_timeout", default=2.0, above=0.0, maximum=600.0),
    )
    s.finish()
    if timing.heartbeat_timeout > 600:
        raise ConfigError(
            f"timing.heartbeat_timeout: must be <= 600, got {timing.heartbeat_timeout}"
        )

    central = None
    if "central" in data:
        s = sec("central")
        url = s.string("url")
        if not url.startswith(("postgresql://", "postgres://")) or len(url.split("://", 1)[1]) < 1:
            raise ConfigError(f"central.url: must be a postgresql:// URL, got {url!r}")
        central = CentralSection(
            url=url,
            status_file=s.path_value("status_file", required=False),
            batch=s.integer("batch", default=500, minimum=1, maximum=10_000),
        )
        s.finish()
    else:
        top.used.add("central")

    house_rules = None
    top.used.add("house_rules")
    if "house_rules" in data:
        from table_controller.controller.house_rules import HouseRules

        raw = data["house_rules"]
        if not isinstance(raw, Mapping):
            raise ConfigError(f"house_rules: must be a table, got {raw!r}")
        house_rules = HouseRules.from_mapping(raw)

    unknown = sorted(set(data) - top.used)
    if unknown:
        close = difflib.get_close_matches(unknown[0], sorted(top.used), n=1)
        hint = f" (did you mean [{close[0]}]?)" if close else ""
        raise ConfigError(f"{unknown[0]}: unknown section{hint}")

    return ControllerConfig(
        table=table, stakes=stakes, rake=rake, devices=devices, calibration=calibration,
        endpoints=endpoints, keys=keys, journal=journal, timing=timing, source=source,
        house_rules=house_rules, central=central,
    )


def loads_config(text: str, *, base_dir: Path | None = None) -> ControllerConfig:
    """Parse and validate TOML text.

    :param base_dir: directory for relative paths (default: the current directory).
    :raises ConfigError: on bad TOML or any invalid key or value.
    """
    data = _parse_toml(text)
    return parse_config(data, base_dir=base_dir or Path.cwd())


def load_config(path: str | Path) -> ControllerConfig:
    """Load and validate a configuration file.

    :raises ConfigError: if the file cannot be read, is not TOML, or any key or value is invalid;
        the message names the file and the key path.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{p}: cannot read configuration: {exc}") from exc
    try:
        data = _parse_toml(text)
        return parse_config(data, base_dir=p.resolve().parent, source=p)
    except ConfigError as exc:
        raise ConfigError(f"{p}: {exc}") from None
