"""Cold start: wall time and peak memory of `python -m pipeline ask` on an existing index.

Linux keeps a process's peak RSS across fork and exec: a child started from the benchmark (several
GB by the 100k size) reports the benchmark's own peak as its `ru_maxrss`. So each run goes through
a tiny wrapper process (a few MB) that starts exactly one child, waits for it, and reports the
child's time and `RUSAGE_CHILDREN` peak, which is then the child's own.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from pipeline.ground.config import REPO_ROOT

# Runs as `python -c`: imports nothing heavy, so its own peak (inherited by its child) stays small.
_WRAPPER = """
import json, resource, subprocess, sys, time
t = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
seconds = time.perf_counter() - t
print(json.dumps({"rc": done.returncode, "seconds": seconds, "stdout": done.stdout[-2000:],
                  "stderr": done.stderr[-2000:],
                  "peak_rss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


def run_measured(command: list[str], env: dict[str, str] | None, cwd: Path = REPO_ROOT, timeout_s: float = 300) -> dict:
    """Run `command` as the only child of a small wrapper: rc, seconds, stdout/stderr tails, own peak RSS."""
    done = subprocess.run(
        [sys.executable, "-c", _WRAPPER, *command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout_s
    )
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(f"the measuring wrapper failed ({done.returncode}): {done.stderr[-500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure_cold_start(home: Path, question: str, runs: int = 3, drop_term_stats: bool = False) -> dict:
    """Wall time of `python -m pipeline ask` (process start to its answer) on an existing index.

    `drop_term_stats` deletes `<home>/term_stats.json` before each run, so the process counts the
    term statistics from every chunk's text again (the behaviour before they were stored).
    """
    env = dict(
        os.environ, WARRANT_HOME=str(home), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", PYTHONPATH=str(REPO_ROOT)
    )
    times, peaks = [], []
    for _ in range(runs):
        if drop_term_stats:
            (Path(home) / "term_stats.json").unlink(missing_ok=True)
        run = run_measured([sys.executable, "-m", "pipeline", "ask", question], env)
        if run["rc"] != 0 or "decision:" not in run["stdout"]:
            raise RuntimeError(f"cold-start run failed ({run['rc']}): {run['stderr'][-500:]}")
        times.append(run["seconds"])
        peaks.append(run["peak_rss_kb"] / 1024)
    return {
        "runs": runs,
        "median_s": round(statistics.median(times), 2),
        "max_s": round(max(times), 2),
        "all_s": [round(x, 2) for x in times],
        # The cold-start process's own peak (see the module docstring), the largest of the runs.
        "peak_rss_mb": round(max(peaks), 1) if peaks else None,
    }
