"""The running app over plain HTTP: login is required for every gradio route, and privileged
endpoints refuse a student on the server whatever the browser shows."""

from __future__ import annotations

import json

import httpx
import pytest

from tests.ui.server import call, login


@pytest.fixture(scope="module")
def app(demo_app):
    return demo_app


def _roles(home) -> dict[str, str]:
    rows = json.loads((home / "accounts.json").read_text())["_default"].values()
    return {r["username"]: r["role"] for r in rows}


def test_unauthenticated_requests_are_refused(app):
    base, _ = app
    with httpx.Client() as client:
        page = client.get(base + "/", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"].endswith("/login")
        for path in ("/config", "/gradio_api/info", "/gradio_api/queue/data"):
            assert client.get(base + path).status_code == 401, path
        refused = client.post(base + "/gradio_api/call/ask", json={"data": ["What is the revaluation fee?", [], ""]})
        assert refused.status_code == 401
        assert (
            client.post(
                base + "/gradio_api/queue/join", json={"data": [], "fn_index": 0, "session_hash": "x"}
            ).status_code
            == 401
        )


def test_metrics_are_off_without_a_token(app):
    base, _ = app
    assert httpx.get(base + "/metrics").status_code == 404  # WARRANT_METRICS_TOKEN is not set


def test_forged_or_tampered_cookie_is_refused(app):
    base, _ = app
    with httpx.Client() as client:
        assert login(client, base, "student").status_code == 303
        token = client.cookies["warrant_session"]
    for forged in (token[:-2] + ("AA" if not token.endswith("AA") else "BB"), "eyJ1IjoiYWRtaW4ifQ.x.y"):
        with httpx.Client(cookies={"warrant_session": forged}) as client:
            assert client.get(base + "/config").status_code == 401


def test_wrong_password_is_refused_with_a_plain_message(app):
    base, _ = app
    with httpx.Client() as client:
        response = login(client, base, "student", "not-the-password")
        assert response.status_code == 401
        assert "Wrong username or password." in response.text and "Traceback" not in response.text
        assert "warrant_session" not in client.cookies


def test_student_gets_a_cited_answer_through_the_api(app):
    base, _ = app
    with httpx.Client() as client:
        login(client, base, "student")
        event, data = call(client, base, "ask", "What is the revaluation fee?", "")
    assert event == "complete"
    history, _, _state, support, sources = data  # gr.State is not exposed over the API
    assert "Rs. 500" in history[-1]["content"][0]["text"] and "[1]" in history[-1]["content"][0]["text"]
    assert "Revaluation" in sources and "σ" in support


def test_student_calling_admin_endpoints_is_refused_and_nothing_changes(app):
    base, home = app
    before = _roles(home)
    audit_before = (home / "audit.jsonl").read_text() if (home / "audit.jsonl").exists() else ""
    with httpx.Client() as client:
        login(client, base, "student")
        event, data = call(client, base, "set_role", "student", "admin")
        assert event == "complete" and "does not allow" in data[0]
        event, data = call(client, base, "create_account", "mallory", "mallory-pass", "admin")
        assert "does not allow" in data[0]
        event, data = call(client, base, "set_tau", 0.01)
        assert "does not allow" in data[0]
        event, data = call(client, base, "list_accounts")
        assert "does not allow" in data[0] and data[1] == {"__type__": "update"}
    assert _roles(home) == before
    after = (home / "audit.jsonl").read_text() if (home / "audit.jsonl").exists() else ""
    assert after == audit_before
    settings = home / "settings.json"  # holds the audit log's genesis marker; τ only once an admin sets it
    assert "tau" not in (json.loads(settings.read_text()) if settings.exists() else {})


def test_admin_changes_a_role_and_the_student_sees_it_at_once(app):
    base, home = app
    with httpx.Client() as admin:
        login(admin, base, "admin")
        _, data = call(admin, base, "create_account", "dana", "dana-pass-123", "user")
        assert data[0] == "Created dana (user)."
        _, data = call(admin, base, "set_role", "dana", "reviewer")
        assert data[0] == "dana: user -> reviewer."
    assert _roles(home)["dana"] == "reviewer"
    events = [json.loads(line)["event"] for line in (home / "audit.jsonl").read_text().splitlines()]
    assert events[-2:] == ["account_created", "role_change"]


def test_logout_clears_the_session(app):
    base, _ = app
    with httpx.Client() as client:
        login(client, base, "student")
        assert client.get(base + "/config").status_code == 200
        response = client.post(base + "/logout", follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"].endswith("/login")
        assert client.get(base + "/config").status_code == 401
