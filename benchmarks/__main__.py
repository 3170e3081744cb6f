"""Run every benchmark module that exposes ``main()``: ``python -m benchmarks [name ...]``.

Each runs with its defaults; ``python -m benchmarks.bench_NAME --help`` lists a benchmark's
options.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import benchmarks


def run(names: list[str]) -> int:
    """Run the named benchmarks (all ``bench_*`` modules when none are named)."""
    modules = pkgutil.iter_modules(benchmarks.__path__)
    found = [m.name for m in modules if m.name.startswith("bench_")]
    chosen = [n for n in found if not names or n in names or n.removeprefix("bench_") in names]
    saved = sys.argv
    for name in sorted(chosen):
        print(f"== {name}", flush=True)
        module = importlib.import_module(f"benchmarks.{name}")
        # the names on this command line choose the benchmarks; a benchmark whose main()
        # parses its own options must not take them for its own (each runs with its
        # defaults here; `python -m benchmarks.bench_NAME --help` lists its options)
        sys.argv = [f"benchmarks.{name}"]
        try:
            module.main()
        finally:
            sys.argv = saved
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
