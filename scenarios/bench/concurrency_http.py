"""Concurrency through HTTP: the real app (`python app.py`) on loopback, driven as browsers drive it.

`measure_concurrency_http` takes a `WarrantService` whose state directory already holds the index,
creates the users' accounts through it, starts `python app.py` on 127.0.0.1 and a free port, logs each simulated
user in with `POST /login` (the session cookie), and has every user ask its questions through the
Gradio API the page itself uses (`POST /gradio_api/queue/join`, then the result from the SSE stream
`GET /gradio_api/queue/data`), one Gradio session per user, so the conversation id kept in
`gr.State` carries over between turns as in a browser tab. After the app is stopped, every user's
stored history is read back through `MemoryService`: a turn that got an answer but is not in its
user's history is a lost turn.

Bounded: at most `MAX_REQUESTS` chat turns, a deadline for the whole run, a timeout per turn,
loopback only, and the app process is always stopped.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pipeline.ground.config import REPO_ROOT
from scenarios.bench.simulated_users import run_users

HOST = "127.0.0.1"  # loopback only: this benchmark never targets another address
MAX_REQUESTS = 1000
PASSWORD = "bench-password-not-secret"
FAILED_REPLIES = ("Something went wrong while answering", "Your session has ended")


WARMUP_USER = "httpwarm"  # asks the warm-up questions; not one of the measured users


def _log(message: str) -> None:
    print(f"[bench-http {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def usernames(users: int) -> list[str]:
    return [f"http{i:02d}" for i in range(users)]


def create_accounts(accounts, users: int) -> None:
    """The bench's accounts, made through the project's own `AccountStore` before the app starts."""
    for name in [WARMUP_USER, *usernames(users)]:
        if accounts.get(name) is None:
            accounts.create(name, PASSWORD, "user", display_name=name)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


@contextmanager
def running_app(
    home: Path, docs_dir: Path, log_path: Path, start_timeout_s: float = 300.0, extra_env: dict[str, str] | None = None
) -> Iterator[tuple[str, float]]:
    """Yield (base URL, seconds until /login answered) of `python app.py` on a free loopback port.

    `extra_env` adds settings (`WARRANT_CHROMA_URL` for a Chroma server). The process is
    terminated (then killed) on the way out, whatever happened.
    """
    port = free_port()
    env = dict(
        os.environ,
        WARRANT_HOME=str(home),
        WARRANT_DOCS=str(docs_dir),
        WARRANT_HOST=HOST,
        PORT=str(port),
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        ANONYMIZED_TELEMETRY="False",
        GRADIO_ANALYTICS_ENABLED="False",
        PYTHONPATH=str(REPO_ROOT),
    )
    env.pop("GRADIO_SERVER_PORT", None)
    env.pop("WARRANT_DEMO_PASSWORD", None)
    env.pop("WARRANT_CHROMA_URL", None)
    env.update(extra_env or {})
    base = f"http://{HOST}:{port}"
    with open(log_path, "w", encoding="utf-8") as log:
        started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, str(REPO_ROOT / "app.py")], cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
        try:
            _wait_until_serving(proc, base, started + start_timeout_s, log_path)
            yield base, time.perf_counter() - started
        finally:
            stop_process(proc)


def stop_process(proc: subprocess.Popen, grace_s: float = 20.0) -> None:
    """Terminate `proc`, and kill it if it has not exited within `grace_s` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=grace_s)


def _wait_until_serving(proc: subprocess.Popen, base: str, deadline: float, log_path: Path) -> None:
    import httpx

    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"app.py exited early ({proc.returncode}):\n{log_path.read_text()[-2000:]}")
        try:
            if httpx.get(base + "/login", timeout=2, trust_env=False).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.perf_counter() > deadline:
            raise RuntimeError(f"app.py did not answer /login in time:\n{log_path.read_text()[-2000:]}")
        time.sleep(0.5)


def login_cookie(base: str, username: str) -> str:
    """The signed session cookie that `POST /login` sets."""
    import httpx

    with httpx.Client(timeout=30, trust_env=False) as client:
        response = client.post(
            base + "/login", data={"username": username, "password": PASSWORD}, follow_redirects=False
        )
        token = client.cookies.get("warrant_session")
    if response.status_code != 303 or not token:
        raise RuntimeError(f"login of {username} failed: HTTP {response.status_code}")
    return token


def _client(token: str, timeout_s: float):
    """One user's HTTP client: the session cookie, and no proxy from the environment (loopback only)."""
    import httpx

    return httpx.Client(cookies={"warrant_session": token}, timeout=timeout_s, trust_env=False)


def ask_fn_index(client, base: str, api_name: str = "ask") -> int:
    """The index of the `ask` event in the page's config (what the browser sends as `fn_index`)."""
    config = client.get(base + "/config")
    config.raise_for_status()
    for dependency in config.json()["dependencies"]:
        if dependency.get("api_name") == api_name:
            return dependency["id"]
    raise RuntimeError(f"the app has no {api_name!r} endpoint")


def queue_call(client, base: str, fn_index: int, session_hash: str, data: list, timeout_s: float) -> list:
    """One event the way the page sends it: `POST queue/join`, then its result from the SSE stream
    `GET queue/data` of the same Gradio session (which is what keeps `gr.State` between turns)."""
    joined = client.post(
        f"{base}/gradio_api/queue/join",
        json={"data": data, "fn_index": fn_index, "session_hash": session_hash, "event_data": None, "trigger_id": None},
    )
    if joined.status_code != 200:
        raise RuntimeError(f"queue/join: HTTP {joined.status_code} {joined.text[:200]}")
    event_id = joined.json()["event_id"]
    with client.stream(
        "GET", f"{base}/gradio_api/queue/data", params={"session_hash": session_hash}, timeout=timeout_s
    ) as stream:
        if stream.status_code != 200:
            raise RuntimeError(f"queue/data: HTTP {stream.status_code}")
        for line in stream.iter_lines():
            if not line.startswith("data:"):
                continue
            message = json.loads(line[5:])
            if message.get("msg") in ("unexpected_error", "server_stopped"):
                raise RuntimeError(f"{message['msg']}: {str(message.get('message'))[:200]}")
            if message.get("event_id") == event_id and message.get("msg") == "process_completed":
                if not message.get("success"):
                    raise RuntimeError(f"event failed: {str(message.get('output'))[:200]}")
                return message["output"]["data"]
    raise RuntimeError("the event stream closed without a result")


def _reply_text(history) -> str:
    return json.dumps(history[-1]["content"], ensure_ascii=False) if history else ""


def warm_up(base: str, questions: list[str], count: int, timeout_s: float) -> None:
    """`count` turns by a user outside the measurement, so first-call costs are not measured."""
    with _client(login_cookie(base, WARMUP_USER), timeout_s) as client:
        fn_index, session_hash = ask_fn_index(client, base), uuid.uuid4().hex[:11]
        for question in questions[:count]:
            queue_call(client, base, fn_index, session_hash, [question, None], timeout_s)


def drive_users(
    base: str | list[str], questions: list[str], users: int, turns: int, deadline_s: float, turn_timeout_s: float
) -> dict:
    """Log in `users` users, then all of them ask `turns` questions at once; per-turn latencies.

    Each user is one browser tab: its own cookie and its own Gradio session hash (which keeps the
    conversation id between turns; the server shows the stored conversation back). Given several app
    processes (`base` a list), each user logs in on the first and alternates between them turn by
    turn with that one cookie, as behind a reverse proxy without sticky sessions (one tab per
    process, so one Gradio session per user and process).
    """
    if users * turns > MAX_REQUESTS:
        raise ValueError(f"{users}x{turns} turns is over the bench's bound of {MAX_REQUESTS}")
    bases = [base] if isinstance(base, str) else list(base)
    names = usernames(users)
    clients = {name: _client(login_cookie(bases[0], name), turn_timeout_s) for name in names}
    try:
        fn_indexes = [ask_fn_index(clients[names[0]], b) for b in bases]
        session_hashes = [[uuid.uuid4().hex[:11] for _ in bases] for _ in names]
        turns_done = [0] * len(names)  # each user's turns run one after another in its own thread

        def ask_turn(n: int, question: str) -> None:
            p = (n + turns_done[n]) % len(bases)
            turns_done[n] += 1
            output = queue_call(
                clients[names[n]], bases[p], fn_indexes[p], session_hashes[n][p], [question, None], turn_timeout_s
            )
            reply = _reply_text(output[0])
            if any(marker in reply for marker in FAILED_REPLIES):
                raise RuntimeError(f"error reply: {reply[:200]}")

        cpu_before = time.process_time()
        run = run_users(users, turns, questions, ask_turn, names, deadline_s, join_slack_s=turn_timeout_s)
        client_cpu = time.process_time() - cpu_before
    finally:
        for client in clients.values():
            client.close()
    return {
        "latencies": run.latencies,
        "errors": run.errors,
        "answered": dict(zip(names, run.answered, strict=False)),
        "wall_s": run.wall_s,
        "client_cpu_s": client_cpu,
    }


def lost_turns(home: Path, answered: dict[str, list[str]]) -> tuple[int, dict[str, int]]:
    """Turns that got an answer over HTTP but are not in their user's stored history; sessions per user."""
    from governance.accounts import AccountStore
    from memory.service import MemoryService

    accounts = AccountStore(Path(home) / "accounts.json")
    memory = MemoryService(Path(home) / "users")
    lost, sessions = 0, {}
    for name, questions in answered.items():
        account = accounts.get(name)
        assert account is not None, f"no account {name!r}: the benchmark made every user's"
        identity = account.identity()
        ids = memory.sessions(identity)
        sessions[name] = len(ids)
        stored = Counter(row["user_text"] for sid in ids for row in memory.history(identity, sid))
        lost += sum((Counter(questions) - stored).values())
    return lost, sessions


def measure_concurrency_http(
    service,
    questions: list[str],
    users: int = 20,
    turns: int = 10,
    deadline_s: float = 600.0,
    turn_timeout_s: float = 120.0,
    warmup: int = 5,
) -> dict:
    """`users` logged-in users asking `turns` questions each, all at once, through the running app.

    `service` (a `WarrantService`) has already ingested the corpus into its state directory, which
    the app then starts on; this process does not use it while the app runs.
    """
    home, docs_dir = service.config.home, service.config.docs_dir
    create_accounts(service.accounts, users)
    _log(f"starting app.py on {HOST} with {home}")
    with running_app(home, docs_dir, home.parent / f"{home.name}-app.log") as (base, start_s):
        _log(f"app serving at {base} after {start_s:.1f}s; {warmup} warm-up turns, then {users} users x {turns} turns")
        warm_up(base, questions, warmup, turn_timeout_s)
        run = drive_users(base, questions, users, turns, deadline_s, turn_timeout_s)
    return {
        "mode": "http",
        "users": users,
        "turns_per_user": turns,
        "client": "httpx: POST /login cookie, gradio queue/join + queue/data (SSE), as the page",
        **run_figures(home, run, users, turns),
        "app_start_s": round(start_s, 1),
        "warmup": warmup,
        "client_cpu_share": client_cpu_share(run),
    }


def run_figures(home: Path, run: dict, users: int, turns: int) -> dict:
    """What a run of simulated users measured: latency, errors, turns lost from the stored
    history, turns not run before the deadline, sessions per user, wall time and throughput."""
    from scenarios.bench.stats import summarise

    lost, sessions = lost_turns(home, run["answered"])
    done = len(run["latencies"])
    return {
        "latency_ms": summarise(run["latencies"]),
        "errors": len(run["errors"]),
        "error_samples": run["errors"][:5],
        "lost_turns": lost,
        "not_run_before_deadline": users * turns - done - len(run["errors"]),
        "sessions_per_user_max": max(sessions.values(), default=0),
        "wall_s": round(run["wall_s"], 1),
        "turns_per_s": round(done / run["wall_s"], 1) if run["wall_s"] else 0.0,
    }


def client_cpu_share(run: dict) -> float:
    """The simulated browsers share the CPUs with the app: their share of the machine."""
    return round(run["client_cpu_s"] / (run["wall_s"] * (os.cpu_count() or 1)), 2)
