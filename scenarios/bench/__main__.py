"""`python -m scenarios.bench [--quick] [...]`: the performance bench (scenarios/bench/measure.py)."""

from __future__ import annotations

import sys

from scenarios.bench.measure import main

if __name__ == "__main__":
    sys.exit(main())
