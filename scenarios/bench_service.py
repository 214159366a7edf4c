"""Concurrency at the service layer: many users calling `WarrantService.chat` at once, no HTTP.

The same code path the Gradio handlers call, so the difference to `scenarios.bench_http` is what
HTTP, Gradio's queue and its pre/post-processing add. A secondary figure of the benchmark.
"""

from __future__ import annotations

import threading
import time

from scenarios.bench_stats import summarise


def bench_identities(users: int):
    from governance.identity import Identity

    return [Identity(user_id=f"local:bench{i:02d}", username=f"bench{i:02d}", role="user",
                     display_name=f"Bench user {i}") for i in range(users)]


def measure_concurrency_service(service, questions: list[str], users: int = 20, turns: int = 10,
                                deadline_s: float = 600.0) -> dict:
    """`users` threads, each one user with one session asking `turns` questions through
    `WarrantService.chat`; then every user's history is checked for all of its turns.

    Service-level: the same code path the Gradio handlers call, without HTTP in front.
    """
    identities = bench_identities(users)
    latencies: list[float] = []
    errors: list[str] = []
    sessions: dict[str, str] = {}
    completed: dict[str, int] = {}
    lock = threading.Lock()
    stop_at = time.monotonic() + deadline_s
    barrier = threading.Barrier(users)

    def run_user(n: int) -> None:
        identity = identities[n]
        session_id = service.memory.new_session(identity)
        sessions[identity.user_id] = session_id
        barrier.wait()
        for turn in range(turns):
            if time.monotonic() > stop_at:
                return
            question = questions[(n * turns + turn) % len(questions)]
            t = time.perf_counter()
            try:
                service.chat(identity, question, session_id)
            except Exception as exc:  # a benchmark counts failures; it does not stop on them
                with lock:
                    errors.append(f"{identity.username} turn {turn}: {type(exc).__name__}: {exc}")
                continue
            with lock:
                latencies.append((time.perf_counter() - t) * 1000)
                completed[identity.user_id] = completed.get(identity.user_id, 0) + 1

    started = time.perf_counter()
    threads = [threading.Thread(target=run_user, args=(n,), daemon=True) for n in range(users)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=max(1.0, stop_at - time.monotonic() + 30))
    wall = time.perf_counter() - started
    lost = 0
    for identity in identities:
        persisted = len(service.memory.history(identity, sessions.get(identity.user_id, "")))
        lost += max(0, completed.get(identity.user_id, 0) - persisted)
    not_run = users * turns - len(latencies) - len(errors)
    return {"mode": "service-level", "users": users, "turns_per_user": turns,
            "latency_ms": summarise(latencies), "errors": len(errors), "error_samples": errors[:5],
            "lost_turns": lost, "not_run_before_deadline": not_run, "wall_s": round(wall, 1),
            "turns_per_s": round(len(latencies) / wall, 1) if wall else 0.0}
