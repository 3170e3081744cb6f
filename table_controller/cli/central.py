"""``table-controller central``: ship a table's journal to PostgreSQL, and ask the floor's record.

``central ship`` runs beside the daemon (the daemon starts it when ``[central] url`` is set);
``migrate``, ``hands``, ``recall``, ``verify``, ``report`` and ``status`` are for the floor,
surveillance and the regulator. Exit status: 0 done, 1 failed (message on stderr), 4 the
journal was refused (tampered or forked: ``ship``) or does not verify (``verify``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from table_controller.central.common import Conn

def parse_time(text: str, *, now: datetime | None = None) -> datetime:
    """Parse an ISO 8601 time or an age (``8h``; see :mod:`table_controller.central.common`)."""
    from table_controller.central.common import parse_time as parse

    try:
        return parse(text, now=now)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _card(text: str) -> str:
    from table_controller.engine.cards import Card

    try:
        return str(Card.parse(text))
    except Exception as exc:
        raise argparse.ArgumentTypeError(f"not a card: {text!r} ({exc})") from None


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``central`` and its subcommands."""
    p = subparsers.add_parser(
        "central", help="ship journals to the central PostgreSQL store and query it",
        description="The floor's record: every table's journal in one PostgreSQL database.")
    sub = p.add_subparsers(dest="central_command", metavar="WHAT")

    def url_arg(q: argparse.ArgumentParser, required: bool = True) -> None:
        q.add_argument("--url", required=required, metavar="postgresql://...",
                       help="the central store")

    q = sub.add_parser("ship", help="ship a table's journal (runs until stopped)")
    q.add_argument("--config", type=Path, help="the table's configuration (journal, table id, "
                   "[central] url, deck profile for the hole cards)")
    q.add_argument("--journal", type=Path, help="the journal file (default: from --config)")
    q.add_argument("--table", help="the table id (default: from --config)")
    url_arg(q, required=False)
    q.add_argument("--status-file", type=Path, metavar="PATH",
                   help="progress as JSON (default: <journal>.central.json)")
    q.add_argument("--batch", type=int, default=500, help="entries a transaction (500)")
    q.add_argument("--once", action="store_true", help="ship what is there, then exit")
    q.set_defaults(handler=_ship)

    q = sub.add_parser("migrate", help="create or upgrade the central schema")
    url_arg(q)
    q.set_defaults(handler=_migrate)

    q = sub.add_parser("hands", help="find hands across the floor")
    url_arg(q)
    q.add_argument("--table")
    q.add_argument("--since", type=parse_time, metavar="TIME", help="ISO time or age (8h)")
    q.add_argument("--until", type=parse_time, metavar="TIME")
    q.add_argument("--seat", type=int, metavar="N", help="dealt in (with --card: holding it)")
    q.add_argument("--card", type=_card, metavar="CARD", help="on the board or in a hand")
    q.add_argument("--river", type=_card, metavar="CARD", help="the fifth board card")
    q.add_argument("--irregularity", metavar="KIND", help="an irregularity kind in the hand")
    q.add_argument("--limit", type=int, default=None)
    q.add_argument("--json", action="store_true", help="one JSON object a line")
    q.set_defaults(handler=_hands)

    q = sub.add_parser("recall", help="one hand step by step, as the table's own recall")
    url_arg(q)
    q.add_argument("--table", required=True)
    q.add_argument("--hand", type=int, required=True)
    q.add_argument("--journal-id", help="prefix of the journal id (default: the newest)")
    q.set_defaults(handler=_recall)

    q = sub.add_parser("verify", help="check the central copy's hash chain")
    url_arg(q)
    q.add_argument("--table", required=True)
    q.add_argument("--journal", type=Path, help="also compare with the table's journal")
    q.add_argument("--journal-id", help="prefix of the journal id (default: every journal)")
    q.set_defaults(handler=_verify)

    q = sub.add_parser("report", help="irregularity report of a shift")
    url_arg(q)
    q.add_argument("--since", type=parse_time, required=True, metavar="TIME")
    q.add_argument("--until", type=parse_time, metavar="TIME")
    q.set_defaults(handler=_report)

    q = sub.add_parser("status", help="print a shipper's status file")
    q.add_argument("status_file", type=Path)
    q.set_defaults(handler=_status)

    def no_subcommand(args: argparse.Namespace) -> int:
        p.print_help()
        return 2
    p.set_defaults(handler=no_subcommand)


def _fail(text: str, code: int = 1) -> int:
    print(f"central: {text}", file=sys.stderr)
    return code


def _with_conn(args: argparse.Namespace, work: Callable[[Conn], int]) -> int:
    import psycopg

    from table_controller.central.common import check_url
    from table_controller.errors import TableError

    try:
        with psycopg.connect(check_url(args.url), connect_timeout=10) as conn:
            return work(conn)
    except psycopg.Error as exc:
        return _fail(f"central store: {exc}".strip())
    except TableError as exc:
        return _fail(str(exc))


def _resolver(config_path: Path) -> Callable[[str], str | None]:
    import importlib

    from table_controller.config import load_config

    config = load_config(config_path)
    for name in ("table_controller.daemon", "table_controller.controller.daemon"):
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        if hasattr(module, "load_deck"):
            deck = {uid: str(card) for uid, card in module.load_deck(config).items()}
            return deck.get
    raise RuntimeError("no load_deck in the daemon package")  # pragma: no cover


def _ship(args: argparse.Namespace) -> int:
    import logging
    import signal

    from table_controller.central.common import ForkedJournalError, check_url
    from table_controller.central.shipper import Shipper
    from table_controller.errors import TableError

    try:
        journal, table, url = args.journal, args.table, args.url
        resolve = None
        if args.config is not None:
            from table_controller.config import load_config

            config = load_config(args.config)
            journal = journal or config.journal.path
            table = table or config.table.id
            central = getattr(config, "central", None)
            url = url or (central.url if central is not None else None)
            resolve = _resolver(args.config)
        if journal is None or table is None or url is None:
            return _fail("ship needs --journal, --table and --url (or --config with them)")
        status = args.status_file or Path(f"{journal}.central.json")
        shipper = Shipper(journal, table, check_url(url), resolve=resolve, status_path=status,
                          batch=args.batch)
    except TableError as exc:
        return _fail(str(exc))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    if args.once:
        try:
            n = shipper.ship_pending()
        except ForkedJournalError as exc:
            return _fail(str(exc), 4)
        except Exception as exc:
            return _fail(f"{type(exc).__name__}: {exc}")
        finally:
            shipper.close()
        print(f"shipped {n} entries of table {table}")
        return 0
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: shipper.stop())
    try:
        shipper.run()
    except ForkedJournalError as exc:
        return _fail(str(exc), 4)
    return 0


def _migrate(args: argparse.Namespace) -> int:
    from table_controller.central.schema import current_version, migrate

    def work(conn: Conn) -> int:
        done = migrate(conn)
        print(f"central schema version {current_version(conn)}"
              + (f" (applied {', '.join(map(str, done))})" if done else " (up to date)"))
        return 0
    return _with_conn(args, work)


def _hands(args: argparse.Namespace) -> int:
    from table_controller.central.query import find_hands

    def work(conn: Conn) -> int:
        found = find_hands(conn, table=args.table, since=args.since, until=args.until,
                           seat=args.seat, card=args.card, river=args.river,
                           irregularity=args.irregularity, limit=args.limit)
        for h in found:
            if args.json:
                print(json.dumps(h.to_dict(), sort_keys=True))
            else:
                irr = f"  irregularities: {', '.join(h.irregularities)}" \
                    if h.irregularities else ""
                print(f"{h.table:<10} hand {h.hand:<6} {h.started:%Y-%m-%d %H:%M:%S}  "
                      f"board {' '.join(h.board) or '-'}{' (voided)' if h.voided else ''}{irr}")
        if not args.json:
            print(f"{len(found)} hands")
        return 0
    return _with_conn(args, work)


def _recall(args: argparse.Namespace) -> int:
    from table_controller.central.query import hand_record
    from table_controller.journal.recall import format_hand

    def work(conn: Conn) -> int:
        print(format_hand(hand_record(conn, args.table, args.hand, args.journal_id)))
        return 0
    return _with_conn(args, work)


def _verify(args: argparse.Namespace) -> int:
    from table_controller.central.query import journal_ids, pick_journal, verify

    def work(conn: Conn) -> int:
        ids = ([pick_journal(conn, args.table, args.journal_id)] if args.journal_id
               else journal_ids(conn, args.table))
        if not ids:
            return _fail(f"no journal of table {args.table!r} in the central store")
        local_id = None
        if args.journal is not None:
            from table_controller.journal import Journal

            with Journal.open(args.journal, readonly=True) as j:
                local_id = j.get(1).hash if j.last_seq else ""
            if local_id not in ids:
                return _fail(f"the journal {args.journal} is not in the central store", 4)
        bad = False
        for jid in ids:
            local = args.journal if jid == local_id else None
            r = verify(conn, args.table, journal_path=local, journal_id=jid)
            where = f", against {local}" + (f" ({r.local_seq} entries)" if r.local_seq else "") \
                if local else ""
            if r.ok:
                print(f"table {args.table} journal {jid[:12]}: {r.entries} entries, chain "
                      f"verified{where}")
            else:
                bad = True
                print(f"table {args.table} journal {jid[:12]}: {r.entries} entries, DOES NOT "
                      f"VERIFY{where}")
                for problem in r.problems[:20]:
                    print(f"  {problem}")
        return 4 if bad else 0
    return _with_conn(args, work)


def _report(args: argparse.Namespace) -> int:
    from table_controller.central.query import irregularity_report

    def work(conn: Conn) -> int:
        print(irregularity_report(conn, since=args.since, until=args.until))
        return 0
    return _with_conn(args, work)


def _status(args: argparse.Namespace) -> int:
    from table_controller.central.shipper import read_status
    from table_controller.errors import TableError

    try:
        s = read_status(args.status_file)
    except TableError as exc:
        return _fail(str(exc))
    print(s.to_json(), end="")
    return 0
