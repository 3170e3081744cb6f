"""Run every benchmark module that exposes ``main()``: ``python -m benchmarks [name ...]``."""

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
    for name in sorted(chosen):
        print(f"== {name}", flush=True)
        module = importlib.import_module(f"benchmarks.{name}")
        module.main()
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
