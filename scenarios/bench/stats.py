"""The benchmark's arithmetic and measurements of this process: percentiles, summaries, memory, disk."""

from __future__ import annotations

import os
import resource
import statistics
from pathlib import Path

from scenarios.suite.metrics import percentile as nearest_rank


def percentile(values: list[float], q: float) -> float:
    """The scenario report's nearest-rank percentile (q in 0..100), but NaN for no values."""
    value = nearest_rank(values, q)
    return float("nan") if value is None else value


def summarise(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "p50": float("nan"), "p95": float("nan"), "mean": float("nan")}
    return {
        "n": len(values),
        "p50": round(statistics.median(values), 2),
        "p95": round(percentile(values, 95), 2),
        "mean": round(statistics.fmean(values), 2),
    }


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports ru_maxrss in KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def disk_usage_mb(folder: Path) -> float:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return round(total / 1024 / 1024, 1)
