"""The built wheel works on its own: installed in a fresh venv, run from another folder.

The wheel is built with ``pip wheel --no-deps``; a fresh venv gets it with ``--no-deps`` and
reaches the dependencies through a ``.pth`` file naming the test's own site-packages (listed
after the venv's own, so the wheel's package comes first), so nothing is downloaded. The
package (not the source tree) must then find its card faces and run ``table-controller demo``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run(cmd: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


def test_the_installed_wheel_runs_the_demo_from_another_folder(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    wheels = tmp_path / "wheels"
    built = run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                 "-q", "-w", str(wheels), str(REPO)], tmp_path, env)
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("table_controller-*.whl")
    venv = tmp_path / "venv"
    made = run([sys.executable, "-m", "venv", str(venv)], tmp_path, env)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    found = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                tmp_path, env)
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (Path(found.stdout.strip()) / "test-deps.pth").write_text("\n".join(sorted(ours)) + "\n")
    installed = run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall",
                     str(wheel)], tmp_path, env)
    assert installed.returncode == 0, installed.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # the wheel's package, not the source tree (an editable install of it is on the path too)
    where = run([str(python), "-c", "import hardware.sim.camera as c, table_controller as t; "
                 "print(t.__file__); print(c.DEFAULT_FACES); "
                 "print(len(list(c.DEFAULT_FACES.glob('*.png'))))"], elsewhere, env)
    assert where.returncode == 0, where.stderr
    package, faces, count = where.stdout.split()
    assert str(venv) in package and str(venv) in faces and count == "52", where.stdout
    # the service files, the example configuration and the central schema ship too
    root = tmp_path / "root"
    svc = run([str(venv / "bin" / "table-controller"), "service", "install", "--root",
               str(root)], elsewhere, env)
    assert svc.returncode == 0, svc.stderr
    assert (root / "etc/table-controller/table.toml.example").is_file()
    assert (root / "etc/systemd/system/table-controller.service").is_file()
    schema = run([str(python), "-c", "from importlib import resources; print(len([p for p in "
                  "resources.files('table_controller.central').joinpath('migrations').iterdir()"
                  " if p.name.endswith('.sql')]))"], elsewhere, env)
    assert schema.returncode == 0 and int(schema.stdout) >= 1, schema.stdout + schema.stderr
    summary = tmp_path / "summary.json"
    demo = run([str(venv / "bin" / "table-controller"), "demo", "--hands", "2", "--fast",
                "--no-display", "--no-save", "--summary-json", str(summary)], elsewhere, env)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    result = json.loads(summary.read_text())
    assert result["hands_played"] == 2 and result["chips_agree"], result
    assert result["chips_after"] + result["rake"] == result["chips_before"] + result["buy_ins"]
