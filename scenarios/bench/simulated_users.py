"""Many simulated users asking at once: the driver both concurrency benchmarks share.

Each user is a thread; all start together (a barrier), ask `turns` questions in turn, and stop at
the deadline. A failing turn is counted, not raised: a benchmark reports errors, it does not stop.
What one turn is (a `WarrantService.chat` call, an HTTP round trip) is the caller's `ask_turn`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class LoadResult:
    latencies: list[float] = field(default_factory=list)  # ms, one per turn that succeeded
    errors: list[str] = field(default_factory=list)
    answered: list[list[str]] = field(default_factory=list)  # per user: the questions that succeeded
    wall_s: float = 0.0


def run_users(
    users: int,
    turns: int,
    questions: list[str],
    ask_turn: Callable[[int, str], None],
    labels: list[str],
    deadline_s: float,
    join_slack_s: float = 30.0,
) -> LoadResult:
    """`ask_turn(user, question)` runs one turn of user number `user` and raises when it fails."""
    result = LoadResult(answered=[[] for _ in range(users)])
    lock = threading.Lock()
    stop_at = time.monotonic() + deadline_s
    barrier = threading.Barrier(users)

    def run_user(n: int) -> None:
        barrier.wait()
        for turn in range(turns):
            if time.monotonic() > stop_at:
                return
            question = questions[(n * turns + turn) % len(questions)]
            t = time.perf_counter()
            try:
                ask_turn(n, question)
            except Exception as exc:  # counted, see the module docstring
                with lock:
                    result.errors.append(f"{labels[n]} turn {turn}: {type(exc).__name__}: {str(exc)[:300]}")
                continue
            elapsed = (time.perf_counter() - t) * 1000
            with lock:
                result.latencies.append(elapsed)
                result.answered[n].append(question)

    started = time.perf_counter()
    threads = [threading.Thread(target=run_user, args=(n,), daemon=True) for n in range(users)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=max(1.0, stop_at - time.monotonic() + join_slack_s))
    result.wall_s = time.perf_counter() - started
    return result
