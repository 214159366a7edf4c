"""Concurrency at the service layer: many users calling `WarrantService.chat` at once, no HTTP.

The same code path the Gradio handlers call, so the difference to `scenarios.bench.concurrency_http` is what
HTTP, Gradio's queue and its pre/post-processing add. A secondary figure of the benchmark.
"""

from __future__ import annotations

from scenarios.bench.simulated_users import run_users
from scenarios.bench.stats import summarise


def bench_identities(users: int):
    from governance.identity import Identity

    return [
        Identity(user_id=f"local:bench{i:02d}", username=f"bench{i:02d}", role="user", display_name=f"Bench user {i}")
        for i in range(users)
    ]


def measure_concurrency_service(
    service, questions: list[str], users: int = 20, turns: int = 10, deadline_s: float = 600.0
) -> dict:
    """`users` threads, each one user with one session asking `turns` questions through
    `WarrantService.chat`; then every user's history is checked for all of its turns.

    Service-level: the same code path the Gradio handlers call, without HTTP in front.
    """
    identities = bench_identities(users)
    sessions = [service.memory.new_session(identity) for identity in identities]

    def ask_turn(n: int, question: str) -> None:
        service.chat(identities[n], question, sessions[n])

    run = run_users(users, turns, questions, ask_turn, [i.username for i in identities], deadline_s)
    latencies, errors, wall = run.latencies, run.errors, run.wall_s
    lost = 0
    for identity, session_id, answered in zip(identities, sessions, run.answered, strict=False):
        persisted = len(service.memory.history(identity, session_id))
        lost += max(0, len(answered) - persisted)
    not_run = users * turns - len(latencies) - len(errors)
    return {
        "mode": "service-level",
        "users": users,
        "turns_per_user": turns,
        "latency_ms": summarise(latencies),
        "errors": len(errors),
        "error_samples": errors[:5],
        "lost_turns": lost,
        "not_run_before_deadline": not_run,
        "wall_s": round(wall, 1),
        "turns_per_s": round(len(latencies) / wall, 1) if wall else 0.0,
    }
