import subprocess
import sys

from table_controller import __version__
from table_controller.cli import main, version


def test_version_is_the_distribution_version() -> None:
    assert version() == __version__


def test_version_flag_prints_and_exits_0() -> None:
    out = subprocess.run([sys.executable, "-m", "table_controller", "--version"],
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0
    assert out.stdout.strip() == f"table-controller {__version__}"


def test_version_flag_in_process() -> None:
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    else:  # pragma: no cover
        raise AssertionError("--version did not exit")
