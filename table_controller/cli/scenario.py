"""``table-controller scenario FILE...``: play scripted tables and check the controller.

Each scenario (``scenarios/*.toml``, format in ``docs/scenarios.md``) runs against the daemon
with simulated devices over ptys (default), or against the controller core in-process
(``--in-process``: no daemon, no devices, milliseconds). Exit status 0 only if every scenario
passed; 2 if a file is invalid.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``scenario`` subcommand."""
    p = subparsers.add_parser(
        "scenario",
        help="play scripted tables (faults, dealer mistakes) and check the controller",
        description="Run scenario files and check prompts, irregularities, holds and final "
        "stacks against the expectations written in them.",
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="scenario TOML files")
    p.add_argument("--in-process", action="store_true",
                   help="run on the controller core in this process (no daemon, no devices)")
    p.add_argument("--keep", action="store_true", help="keep each run's work directory")
    p.add_argument("-v", "--verbose", action="store_true", help="print every prompt")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the scenarios; 0 if all passed, 1 if one failed, 2 for an invalid file."""
    import asyncio
    import signal

    from table_controller.simtable.scenario import (
        Scenario,
        ScenarioError,
        ScenarioResult,
        load_scenario,
        run_file,
    )

    try:
        scenarios = [load_scenario(f) for f in args.files]
    except ScenarioError as exc:
        print(f"scenario: {exc}", file=sys.stderr)
        return 2
    async def one(scn: Scenario) -> ScenarioResult:
        # SIGTERM / SIGHUP stop the run like Ctrl-C, with the daemon and simulators it started
        task = asyncio.current_task()
        assert task is not None
        for sig in (signal.SIGTERM, signal.SIGHUP):
            asyncio.get_running_loop().add_signal_handler(sig, task.cancel)
        return await run_file(scn, in_process=args.in_process, keep=args.keep)

    failed = 0
    for scn in scenarios:
        try:
            result = asyncio.run(one(scn))
        except (KeyboardInterrupt, asyncio.CancelledError):
            print("scenario: interrupted; everything it started is stopped", file=sys.stderr)
            return 130
        mark = "PASS" if result.passed else "FAIL"
        print(f"{mark}  {scn.name}  ({scn.path})", flush=True)
        if args.verbose:
            for text in result.prompts:
                print(f"      prompt: {text}")
        for f in result.failures:
            print(f"      - {f}")
        if result.workdir:
            print(f"      kept: {result.workdir} (journal, daemon log, hand histories)")
        failed += not result.passed
    print(f"{len(scenarios) - failed} passed, {failed} failed")
    return 1 if failed else 0
