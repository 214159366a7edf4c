"""Several app processes over one state directory, for real: `chroma run` on loopback, two
`python app.py` processes on two ports, users alternating between them with one cookie.

With the Chroma server: every user's 20 turns alternate between the processes; a reviewer approves
a claim on one process and the other answers from the new text at once; τ set on one process
governs the other's next answer. Then the same with the embedded default, where a second process
is refused at start (its searches would not see the first one's index changes; measured in
tests/pipeline/test_chroma_client.py), and the one process does all of it.

Afterwards, in both: every user's history holds every turn, the audit chain verifies, and every
JSON state file parses.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import uuid
from collections import Counter
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest

from scenarios.bench.chroma_server import running_chroma_server
from scenarios.bench.concurrency_http import PASSWORD, ask_fn_index, free_port, login_cookie, queue_call, running_app
from tests.conftest import REPO, run_module, subprocess_env
from tests.ui.server import call

USERS = ["mp-ada", "mp-ben", "mp-cy"]
TURNS = 20
START_TIMEOUT_S = 900  # a generous bound: on a loaded 2-core machine an app start took over 4 minutes
QUESTIONS = [
    "What is the photocopy fee?",
    "How many books can an undergraduate borrow?",
    "What is the fine for an overdue book?",
    "How long can a postgraduate keep a book?",
    "When are borrowing rights suspended?",
    "How do I pay the fee?",
]
FEE_QUESTION = "What is the revaluation fee?"
CLAIM = "The revaluation fee is now Rs. 800 per course."
PROOF = "Circular 3/2026 of the Controller of Examinations: the revaluation fee is Rs. 800 per course."


def _make_accounts(home: Path) -> None:
    from governance.accounts import AccountStore

    accounts = AccountStore(home / "accounts.json")
    for name in USERS:
        accounts.create(name, PASSWORD, "user", display_name=name)
    accounts.create("mp-rev", PASSWORD, "reviewer", display_name="mp-rev")
    accounts.create("mp-admin", PASSWORD, "admin", display_name="mp-admin")


def _reply(history: list) -> str:
    return json.dumps(history[-1]["content"], ensure_ascii=False) if history else ""


class Tab:
    """One user's browser tabs, one per process, sharing the cookie from a login on the first."""

    def __init__(self, bases: list[str], username: str) -> None:
        self.bases = bases
        self.client = httpx.Client(
            cookies={"warrant_session": login_cookie(bases[0], username)}, timeout=120, trust_env=False
        )
        self.fn = [ask_fn_index(self.client, b) for b in bases]
        self.sessions = [uuid.uuid4().hex[:11] for _ in bases]
        self.histories: list[list] = [[] for _ in bases]
        self.asked: list[str] = []

    def ask(self, process: int, question: str) -> str:
        output = queue_call(
            self.client,
            self.bases[process],
            self.fn[process],
            self.sessions[process],
            [question, None],
            120,
        )
        self.histories[process] = output[0]
        self.asked.append(question)
        return _reply(self.histories[process])

    def call(self, process: int, api_name: str, *data):
        event, payload = call(self.client, self.bases[process], api_name, *data)
        assert event == "complete", (api_name, event, payload)
        return payload


def _users_take_turns(tabs: dict[str, Tab], turns: range, processes: int) -> list[str]:
    """Every user at once, each alternating between the processes; the failures."""
    errors: list[str] = []

    def run(n: int, name: str) -> None:
        for turn in turns:
            try:
                reply = tabs[name].ask((n + turn) % processes, QUESTIONS[(n + turn) % len(QUESTIONS)])
                if "Something went wrong" in reply or "session has ended" in reply:
                    errors.append(f"{name} turn {turn}: {reply[:200]}")
            except Exception as exc:  # recorded and asserted on below
                errors.append(f"{name} turn {turn}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=run, args=(n, name)) for n, name in enumerate(USERS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=600)
    assert not any(th.is_alive() for th in threads), "a user's turns did not finish in 10 minutes"
    return errors


def _scenario(bases: list[str]) -> dict[str, Tab]:
    """The users' 20 turns each, with a claim approved and τ changed half-way; asserts as it goes."""
    last = len(bases) - 1  # the process the reviewer and the admin do NOT use (the same one when alone)
    tabs = {name: Tab(bases, name) for name in USERS}
    assert not _users_take_turns(tabs, range(TURNS // 2 - 1), len(bases))

    ada = tabs[USERS[0]]
    assert "Rs. 500" in ada.ask(last, FEE_QUESTION)
    reviewer, admin = Tab(bases, "mp-rev"), Tab(bases, "mp-admin")
    filed = ada.call(0, "file_claim", CLAIM, PROOF, None)[0]
    assert filed.startswith("Filed as "), filed
    ticket_id = filed.split()[2].rstrip(".")
    approved = reviewer.call(0, "review_approve", ticket_id, "circular checked", "open")[0]
    assert approved.startswith("Approved"), approved
    after = tabs[USERS[1]].ask(last, FEE_QUESTION)  # the other process, no restart
    assert "Rs. 800" in after and "Rs. 500" not in after, after

    admin.call(0, "set_tau", 0.99)  # nothing in this corpus reaches σ 0.99: the other process abstains
    strict = tabs[USERS[2]].ask(last, FEE_QUESTION)
    assert "Rs. 800" not in strict, strict
    admin.call(last, "set_tau", 0.42)

    assert not _users_take_turns(tabs, range(TURNS // 2 - 1, TURNS - 1), len(bases))
    for tab in (*tabs.values(), reviewer, admin):
        tab.client.close()
    for name, tab in tabs.items():
        assert len(tab.asked) == TURNS, (name, len(tab.asked))
    return tabs


def _check_state(home: Path, tabs: dict[str, Tab]) -> None:
    """Every turn in its user's history; the audit chain intact; no state file damaged."""
    from governance.accounts import AccountStore
    from memory.service import MemoryService

    accounts, memory = AccountStore(home / "accounts.json"), MemoryService(home / "users")
    for name, tab in tabs.items():
        account = accounts.get(name)
        assert account is not None, name
        identity = account.identity()
        stored = Counter(row["user_text"] for sid in memory.sessions(identity) for row in memory.history(identity, sid))
        missing = Counter(tab.asked) - stored
        assert not missing, (name, missing)
    verify = run_module("governance", "audit", "verify", "--home", str(home), home=home)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    for path in home.rglob("*"):
        assert ".damaged-" not in path.name, path
        if path.suffix == ".json" and path.is_file():
            json.loads(path.read_text(encoding="utf-8"))
        elif path.suffix == ".jsonl" and path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                json.loads(line)


@pytest.fixture()
def state(tmp_path: Path, tiny_docs_in_rupees: Path) -> tuple[Path, Path]:
    """Accounts, and the tiny corpus with its glossary: the claim approved here is about rupees."""
    home = tmp_path / "home"
    _make_accounts(home)
    return home, tiny_docs_in_rupees


def test_two_processes_over_one_state_directory_and_a_chroma_server(tmp_path: Path, state):
    home, docs = state
    with ExitStack() as stack:
        url = stack.enter_context(running_chroma_server(tmp_path / "chroma-server"))
        env = {"WARRANT_CHROMA_URL": url}
        bases = [
            stack.enter_context(running_app(home, docs, tmp_path / f"app{i}.log", START_TIMEOUT_S, extra_env=env))[0]
            for i in range(2)
        ]
        tabs = _scenario(bases)
    _check_state(home, tabs)
    assert not (home / "chroma" / "chroma.sqlite3").exists()  # the chunks lived on the server


def test_with_the_embedded_index_a_second_process_is_refused_and_one_serves_everything(tmp_path: Path, state):
    home, docs = state
    with running_app(home, docs, tmp_path / "app0.log", START_TIMEOUT_S) as (base, _):
        env = subprocess_env(home)
        env.update(PORT=str(free_port()), WARRANT_HOST="127.0.0.1", WARRANT_DOCS=str(docs))
        env.pop("WARRANT_CHROMA_URL", None)
        second = subprocess.run(
            [sys.executable, str(REPO / "app.py")],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=START_TIMEOUT_S,
        )
        assert second.returncode == 2 and "WARRANT_CHROMA_URL" in second.stderr, second.stderr[-2000:]
        assert "loading the embedding model" not in second.stdout  # refused before the model is loaded
        tabs = _scenario([base])
    _check_state(home, tabs)
