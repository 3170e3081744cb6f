"""The daemon's per-type tables are complete, and product code neither imports nor names sim."""

from __future__ import annotations

import re
import typing
from pathlib import Path

from table_controller.controller.events import ControllerInput, Output
from table_controller.daemon.devices import EVENT_INPUTS
from table_controller.daemon.journaling import JOURNAL_RULES, output_types
from table_controller.daemon.publishing import PUBLISH_RULES

ROOT = Path(__file__).resolve().parents[2]


def test_every_output_type_has_a_journal_rule_and_a_publish_rule() -> None:
    types = set(typing.get_args(Output))
    assert set(output_types()) == types
    # a rule, or None for "explicitly not journaled / not published"
    assert set(JOURNAL_RULES) == types
    assert set(PUBLISH_RULES) == types


def test_every_device_event_maps_to_a_core_input() -> None:
    inputs = set(typing.get_args(ControllerInput))
    for make in EVENT_INPUTS.values():
        ret = typing.get_type_hints(make)["return"]
        assert ret in (ControllerInput,) or ret in inputs


def test_the_daemon_and_the_registry_never_branch_on_simulators() -> None:
    where = [ROOT / "table_controller" / "daemon", ROOT / "table_controller" / "controller",
             ROOT / "hardware" / "base.py", ROOT / "hardware" / "camera"]
    files = [p for w in where for p in ([w] if w.is_file() else sorted(w.rglob("*.py")))]
    bad = []
    for path in files:
        code = _without_docstrings_and_comments(path.read_text(encoding="utf-8"))
        for n, line in enumerate(code.splitlines(), 1):
            if re.search(r"hardware\.sim|\bsim://", line):
                bad.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    # the registry's table of backends names the simulator modules as strings, like any other
    assert [b for b in bad if "LAZY_MODULES" not in b and '"sim://' not in b] == []


def _without_docstrings_and_comments(text: str) -> str:
    text = re.sub(r'"""[\s\S]*?"""', lambda m: "\n" * m.group(0).count("\n"), text)
    return "\n".join(line.split("#", 1)[0] for line in text.splitlines())
