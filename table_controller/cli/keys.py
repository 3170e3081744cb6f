"""``table-controller keys``: make a CURVE key pair for the daemon, a display or a console."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``keys`` subcommand."""
    p = subparsers.add_parser(
        "keys",
        help="make a CURVE key pair (NAME.key public, NAME.key_secret secret)",
        description="Make a CURVE key pair with zmq.auth.create_certificates. Give the daemon "
        "its pair (keys.server_secret_key), copy each display's NAME.key into keys.displays_dir "
        "and each console's NAME.key into keys.consoles_dir. Existing files are never "
        "overwritten.",
    )
    p.add_argument("--out", type=Path, required=True, help="directory to write the key files in")
    p.add_argument("--name", required=True, help="key name, e.g. server, display-3, console-1")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Create the pair; returns 0, or 1 with a message on stderr."""
    from table_controller.feeds.security import KeyFileError, create_key_pair, load_public_key

    try:
        public, secret = create_key_pair(args.out, args.name)
    except KeyFileError as exc:
        print(f"keys: {exc}", file=sys.stderr)
        return 1
    print(f"public key: {public}  ({load_public_key(public).decode()})")
    print(f"secret key: {secret}  (keep it private; mode 0600)")
    return 0
