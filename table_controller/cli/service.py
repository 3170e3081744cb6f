"""``table-controller service install``: the systemd unit, service user and udev example.

Exit status: 0 when the files were written, 2 for a bad argument, 1 when a file cannot be
written (the message names the path).
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``service`` subcommand group."""
    p = subparsers.add_parser("service", help="install the systemd service files",
                              description="Install the shipped systemd unit, sysusers entry "
                                          "and udev example below a root directory.")
    sub = p.add_subparsers(dest="action", metavar="ACTION")
    inst = sub.add_parser("install", help="write the service files below --root")
    inst.add_argument("--root", type=Path, default=Path("/"),
                      help="the system's root (default /; a scratch folder to look first)")
    inst.add_argument("--exec", dest="executable", default=None,
                      help="the table-controller command the unit starts "
                           "(default: this one, as an absolute path)")
    inst.set_defaults(handler=install)

    def usage(_args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p.set_defaults(handler=usage)


def install(args: argparse.Namespace) -> int:
    """Write the files and say what to do next."""
    from table_controller.service import install as write

    exe = args.executable or shutil.which("table-controller") or sys.argv[0]
    exe = str(Path(exe).absolute()) if args.executable is None else exe
    try:
        written = write(args.root, exe)
    except ValueError as exc:
        print(f"table-controller service install: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"table-controller service install: cannot write {exc.filename}: "
              f"{exc.strerror}", file=sys.stderr)
        return 1
    for path in written:
        print(f"wrote {path}")
    print("next: systemd-sysusers; put the table's configuration in "
          "/etc/table-controller/table.toml; systemctl daemon-reload; "
          "systemctl enable --now table-controller")
    return 0
