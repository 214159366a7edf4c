"""σ's weights as the tuning runs search them: the parts in order and the grid of λ.

Its own module because both the calibration run (calibrate_gate.py) and the golden report's tuning
(golden.py, which calibrate_gate reads the golden questions from) search the same grid.
"""

from __future__ import annotations

import itertools

PARTS = ("sim", "reader", "coverage", "consistency")
CONSISTENCY_WEIGHT = 0.05


def lambda_grid(step: float = 0.05) -> list[tuple[float, float, float, float]]:
    """(sim, reader, coverage, consistency) weights summing to 1, consistency fixed."""
    free = round(1.0 - CONSISTENCY_WEIGHT, 4)
    n = round(free / step)
    grid = []
    for i, j in itertools.product(range(n + 1), repeat=2):
        if i + j <= n:
            grid.append((round(i * step, 4), round(j * step, 4), round((n - i - j) * step, 4), CONSISTENCY_WEIGHT))
    return grid
