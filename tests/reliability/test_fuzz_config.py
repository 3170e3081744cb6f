"""Bad input on the configuration loader: random text, random TOML, mutated working files.

Property: :func:`~table_controller.config.load_config` returns a configuration or raises
:class:`~table_controller.errors.ConfigError` with a message; nothing else escapes. A single
changed value of the working example is refused with a message naming its section or key.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_controller.config import ControllerConfig, load_config, loads_config
from table_controller.errors import ConfigError
from tests.reliability.counts import COUNTS

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = (REPO / "examples" / "table.toml").read_text()
EXAMPLES = int(os.environ.get("RELIABILITY_FUZZ_EXAMPLES", "100"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

SECTIONS = ["table", "stakes", "rake", "devices", "calibration", "endpoints", "keys", "journal",
            "timing", "tabel", "extra"]
KEYS = ["id", "name", "seats", "small_blind", "big_blind", "ante", "bb_ante", "percent", "cap",
        "no_flop_no_drop", "shoe", "chips", "camera", "decks_dir", "active_deck", "chip_zones",
        "public", "dealer", "surveillance", "snapshot", "surveillance_snapshot", "commands",
        "security", "server_secret_key", "displays_dir", "consoles_dir", "path", "phh_dir",
        "heartbeat_interval", "heartbeat_timeout", "command_timeout", "device_timeout", "big_bind"]


def toml_string(s: str) -> str:
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            out.append("?")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return toml_string(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    assert isinstance(v, dict)
    return "{" + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + "}"


scalars = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1), st.floats(), st.booleans(),
    st.text(max_size=40),
    st.sampled_from(["sim://shoe", "sim://chips", "sim://camera", "serial:///dev/ttyUSB0",
                     "lines:///dev/ttyUSB1?format=id12", "camera://0", "tcp://127.0.0.1:5561",
                     "tcp://127.0.0.1:*", "ipc:///tmp/x.sock", "curve", "none", "T1", "",
                     "tcp://[::1]:70000", "~/journal.db", "/nonexistent/dir"]))
values = st.one_of(scalars, st.lists(scalars, max_size=3),
                   st.dictionaries(st.sampled_from(KEYS), scalars, max_size=2))
documents = st.dictionaries(
    st.sampled_from(SECTIONS),
    st.dictionaries(st.sampled_from(KEYS), values, max_size=8), max_size=10)


def render(doc: dict[str, dict[str, Any]]) -> str:
    lines = []
    for sec, body in doc.items():
        lines.append(f"[{sec}]")
        lines += [f"{k} = {toml_value(v)}" for k, v in body.items()]
    return "\n".join(lines) + "\n"


def load_or_refuse(text: str | bytes, tmp: Path) -> ControllerConfig | ConfigError:
    path = tmp / "table.toml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    try:
        return load_config(path)
    except ConfigError as exc:
        assert str(exc).strip(), "a refusal must say what was wrong"
        assert str(path) in str(exc), "a refusal names the file"
        return exc


@FUZZ
@given(st.one_of(st.text(max_size=400), st.binary(max_size=400)))
def test_random_text_is_refused_cleanly(tmp_path: Path, text: str | bytes) -> None:
    got = load_or_refuse(text, tmp_path)
    assert isinstance(got, ConfigError)
    COUNTS["config inputs fuzzed"] += 1


@FUZZ
@given(documents)
def test_random_toml_documents_load_or_are_refused(tmp_path: Path,
                                                   doc: dict[str, dict[str, Any]]) -> None:
    got = load_or_refuse(render(doc), tmp_path)
    assert isinstance(got, ControllerConfig | ConfigError)
    COUNTS["config inputs fuzzed"] += 1


_ASSIGN = re.compile(r"^(?P<key>[a-z_]+)\s*=\s*(?P<value>.*?)\s*(#.*)?$")


def example_keys() -> list[tuple[int, str, str]]:
    """(line number, section, key) of every assignment in the working example."""
    out, section = [], ""
    for i, line in enumerate(EXAMPLE.splitlines()):
        if line.startswith("["):
            section = line.split("]")[0].strip("[ ")
        elif m := _ASSIGN.match(line):
            out.append((i, section, m["key"]))
    return out


ASSIGNMENTS = example_keys()


@FUZZ
@given(st.sampled_from(ASSIGNMENTS), st.one_of(values, st.none()))
def test_one_changed_value_is_accepted_or_refused_naming_it(
        tmp_path: Path, where: tuple[int, str, str], value: Any) -> None:
    line_no, section, key = where
    lines = EXAMPLE.splitlines()
    lines[line_no] = "" if value is None else f"{key} = {toml_value(value)}"
    text = "\n".join(lines).replace("~/.local/state/table-controller/T1", str(tmp_path))
    got = load_or_refuse(text, tmp_path)
    if isinstance(got, ConfigError):
        msg = str(got)
        # a rule between keys may name the other key: real devices need calibration and keys
        related = {"devices": ("calibration.", "keys.")}.get(section, ())
        named = (f"{section}." in msg or key in msg or "TOML" in msg
                 or any(r in msg for r in related))
        assert named, (section, key, msg)
    COUNTS["config inputs fuzzed"] += 1


@FUZZ
@given(st.lists(st.tuples(st.sampled_from(["drop", "dup", "swap"]), st.integers(0, 200)),
                min_size=1, max_size=6))
def test_shuffled_lines_of_the_example(tmp_path: Path, ops: list[tuple[str, int]]) -> None:
    lines = EXAMPLE.splitlines()
    for op, i in ops:
        i %= len(lines)
        if op == "drop":
            del lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        else:
            j = (i * 7 + 3) % len(lines)
            lines[i], lines[j] = lines[j], lines[i]
        if not lines:
            lines = [""]
    got = load_or_refuse("\n".join(lines), tmp_path)
    assert isinstance(got, ControllerConfig | ConfigError)
    COUNTS["config inputs fuzzed"] += 1


def test_the_example_itself_loads() -> None:
    cfg = loads_config(EXAMPLE, base_dir=REPO / "examples")
    assert cfg.table.id == "T1"


@pytest.mark.parametrize("text", ["[table]\nid = 1\n", "\xff\xfe", "[[table]]\n", "a = [\n"])
def test_known_bad_inputs(tmp_path: Path, text: str) -> None:
    assert isinstance(load_or_refuse(text, tmp_path), ConfigError)
