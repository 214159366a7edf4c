"""Concurrency through HTTP against several app processes sharing one state directory and a Chroma server.

The deployment shape "one server, several processes behind a reverse proxy" (docs/operations.md):
`chroma run` on loopback holds the index, `python app.py` runs `processes` times over one
`WARRANT_HOME` with `WARRANT_CHROMA_URL` set, and the same simulated users as `concurrency_http` log in
on the first process and alternate between the processes turn by turn with that one cookie (no
sticky sessions). The index is copied from the single-process bench's state (vectors included,
so nothing is embedded again). After the processes stop, every answered turn is looked up in its
user's stored history, as in `concurrency_http`.

Bounded like `concurrency_http`: loopback only, `MAX_REQUESTS`, a deadline, every process stopped.
"""

from __future__ import annotations

import time
from contextlib import ExitStack
from dataclasses import replace

import numpy as np

from scenarios.bench.chroma_server import running_chroma_server
from scenarios.bench.concurrency_http import (
    HOST,
    client_cpu_share,
    create_accounts,
    drive_users,
    run_figures,
    running_app,
    warm_up,
)


def _log(message: str) -> None:
    import sys

    print(f"[bench-multi {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def copy_index(source, target) -> int:
    """Copy every chunk of `source` (a `ChunkIndex`) into `target` with its vector and its sentence
    vectors; returns how many chunks. Nothing is embedded."""
    nodes = source.get_nodes(None, with_embeddings=True)
    target.add_nodes(nodes, sentence_vectors=False)
    vectors = source.sentence_vectors.get([(n.node_id, n.get_content()) for n in nodes])
    target.sentence_vectors.put_rows(
        [
            (chunk_id, matrix.shape[0], matrix.shape[1], matrix.astype(np.float16).tobytes())
            for chunk_id, matrix in vectors.items()
        ]
    )
    return len(nodes)


def measure_concurrency_multi(
    service,
    questions: list[str],
    users: int = 20,
    turns: int = 10,
    processes: int = 2,
    deadline_s: float = 600.0,
    turn_timeout_s: float = 120.0,
    warmup: int = 5,
) -> dict:
    """`users` users × `turns` turns through HTTP, alternating between `processes` app processes.

    `service` is the single-process bench's `WarrantService`, whose index is copied to the server.
    """
    from governance.accounts import AccountStore
    from pipeline.ingest.index import ChunkIndex
    from pipeline.retrieve.chroma_client import open_chroma

    work = service.config.home.parent / f"multi-{processes}"
    home = work / "home"
    with running_chroma_server(work / "chroma-server") as url:
        config = replace(service.config.with_home(home), chroma_url=url)
        target = ChunkIndex(
            config.chroma_dir,
            service.engine.embed_model,
            client=open_chroma(config),
            collection=config.chroma_collection,
        )
        copied = copy_index(service.engine.index, target)
        create_accounts(AccountStore(home / "accounts.json"), users)
        _log(f"chroma server at {url} with {copied} chunks; starting {processes} app processes on {HOST}")
        with ExitStack() as stack:
            apps = [
                stack.enter_context(
                    running_app(home, config.docs_dir, work / f"app{i}.log", extra_env={"WARRANT_CHROMA_URL": url})
                )
                for i in range(processes)
            ]
            bases = [base for base, _ in apps]
            for base in bases:
                warm_up(base, questions, warmup, turn_timeout_s)
            _log(f"serving at {', '.join(bases)}; {users} users x {turns} turns, alternating")
            run = drive_users(bases, questions, users, turns, deadline_s, turn_timeout_s)
    return {
        "mode": "http-multi",
        "processes": processes,
        "chroma": "server (chroma run on loopback)",
        "users": users,
        "turns_per_user": turns,
        "client": "httpx: POST /login on the first process, that cookie on every process; turns alternate",
        **run_figures(home, run, users, turns),
        "app_start_s": [round(start, 1) for _, start in apps],
        "warmup": warmup,
        "chunks": copied,
        "client_cpu_share": client_cpu_share(run),
    }
