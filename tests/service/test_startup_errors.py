"""Start-up mistakes a person makes: one line naming the path or key and the fix, a known code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path("examples/table.toml").read_text(encoding="utf-8")


def _run(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    cfg = tmp_path / "table.toml"
    cfg.write_text(text, encoding="utf-8")
    exe = str(Path(sys.executable).with_name("table-controller"))
    return subprocess.run([exe, "run", "--config", str(cfg), "--log-level", "WARNING"],
                          capture_output=True, text=True, timeout=60, check=False)


def _one_line(err: str) -> str:
    lines = [ln for ln in err.splitlines() if ln.startswith("table-controller run:")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize(("key", "line"), [
    ("journal.path", 'path = "~/.local/state/table-controller/T1/journal.db"'),
    ("journal.phh_dir", 'phh_dir = "~/.local/state/table-controller/T1/phh"'),
])
def test_a_journal_folder_that_cannot_be_made(tmp_path: Path, key: str, line: str) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    name = line.split(" = ")[0]
    leaf = "journal.db" if name == "path" else "phh"
    text = EXAMPLE.replace(line, f'{name} = "{blocker}/sub/{leaf}"')
    assert text != EXAMPLE
    out = _run(tmp_path, text)
    assert out.returncode == 1
    msg = _one_line(out.stderr)
    assert f"{key}: cannot create the folder" in msg and str(blocker) in msg
    assert f"change {key}" in msg


def test_a_typo_in_a_required_key_names_the_typo(tmp_path: Path) -> None:
    out = _run(tmp_path, EXAMPLE.replace("big_blind = 100", "big_bind = 100"))
    assert out.returncode == 2
    msg = _one_line(out.stderr)
    assert "stakes.big_blind: missing (required)" in msg and "did you mean 'big_blind'" in msg
    assert "big_bind" in msg


def test_ctrl_c_during_the_start_is_one_line_and_exit_0(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C before the daemon's own signal handling is in place (the first second)."""
    import table_controller.cli.run as run_cli
    from table_controller.cli import build_parser

    def interrupted(_args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(run_cli, "_run", interrupted)
    args = build_parser().parse_args(["run", "--config", "examples/table.toml"])
    assert args.handler(args) == 0
    err = capsys.readouterr().err
    assert err == "table-controller run: stopped (Ctrl-C) before the table started\n"
