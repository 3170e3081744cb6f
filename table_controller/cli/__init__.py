"""The ``table-controller`` command.

Each subcommand lives in its own module under :mod:`table_controller.cli` and exposes
``register(subparsers) -> None``, which adds its parser and sets ``handler`` (a callable taking the
parsed namespace and returning the exit status). Heavy imports (OpenCV, ZeroMQ) belong inside the
handler, so ``table-controller --help`` stays fast. ``calibrate`` is a group: its modules register
into the ``calibrate`` sub-parsers.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

#: Top-level subcommand modules, in help order.
COMMAND_MODULES = (
    "replay",
    "run",
    "demo",
    "console",
    "display",
    "floor_proxy",
    "floor_web",
    "scenario",
    "recall",
    "journal",
    "central",
    "keys",
    "vision",
    "soak",
    "service",
    "sim",
    "check_device",
)
#: Modules that add ``table-controller calibrate <what>``.
CALIBRATE_MODULES = ("calibrate_deck", "calibrate_chips", "calibrate_camera")

Handler = Callable[[argparse.Namespace], int]


def _load(name: str) -> object | None:
    try:
        return importlib.import_module(f"table_controller.cli.{name}")
    except ModuleNotFoundError as exc:
        if exc.name == f"table_controller.cli.{name}":
            return None
        raise


def version() -> str:
    """Return the installed distribution's version (the package's own when not installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("table-controller")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree without install
        from table_controller import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every available subcommand."""
    parser = argparse.ArgumentParser(
        prog="table-controller",
        description="Casino table controller for Texas hold'em.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = _load(name)
        if module is not None:
            module.register(sub)  # type: ignore[attr-defined]
    calibrate = sub.add_parser("calibrate", help="register decks, chip zones and the camera")
    cal_sub = calibrate.add_subparsers(dest="what", metavar="WHAT")
    for name in CALIBRATE_MODULES:
        module = _load(name)
        if module is not None:
            module.register(cal_sub)  # type: ignore[attr-defined]
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    return handler(args)


if __name__ == "__main__":
    sys.exit(main())
