"""Test-suite-wide settings.

Hypothesis runs derandomised by default (profile ``ci``): every run tries the same examples, so a
CI run cannot fail on an example no earlier run tried. Set ``HYPOTHESIS_PROFILE=explore`` to draw
new examples each run (the slow runs and bug hunts).
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
