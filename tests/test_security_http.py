"""Issue 15 over HTTP, against the real `python app.py`: a file outside the upload folder, cross-
origin calls, logout, the login throttle, upload limits, state permissions, headers.

Each test names the finding it pins. The throttle test runs last (it spends an address's budget).
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import stat

import httpx
import pytest

from tests.conftest import REPO
from tests.ui.server import DEMO_PASSWORD, call, login, running_app

EVIL = "https://evil.example"


@pytest.fixture(scope="module")
def app():
    # behind one proxy, which the throttle test plays: it appends the client address it saw
    with running_app(extra_env={"WARRANT_TRUSTED_PROXY_HOPS": "1"}) as (base, home):
        yield base, home


def _tickets_text(home) -> str:
    path = home / "tickets.json"
    return path.read_text(encoding="utf-8") if path.exists() else ""


# -- 1. server file read through a claim's proof ------------------------------------------------


def test_f01_claim_cannot_name_a_server_file_as_proof(app):
    base, home = app
    readme = (REPO / "README.md").resolve()
    marker = "tamper-evident audit log"  # a phrase of README.md
    assert marker in readme.read_text(encoding="utf-8")
    payload = {"path": str(readme), "meta": {"_type": "gradio.FileData"}, "orig_name": "README.md"}
    with httpx.Client() as client:
        login(client, base, "student")
        event, data = call(client, base, "file_claim", "The revaluation fee is now Rs. 800 per course.", "", payload)
        assert event != "complete" or not str(data[0]).startswith("Filed as"), data
        _, mine = call(client, base, "my_claims")
    assert marker not in _tickets_text(home)
    assert marker not in json.dumps(mine)


def test_f01_secret_files_of_the_state_directory_cannot_be_named_either(app):
    base, home = app
    with httpx.Client() as client:
        login(client, base, "student")
        for target in (home / "secret.key", home / "accounts.json", home / "uploads" / ".." / "secret.key"):
            # refused where Gradio takes the file (issue 27): the event fails before any handler runs
            event, _ = call(
                client,
                base,
                "file_claim",
                "The revaluation fee is now Rs. 800.",
                "",
                {"path": str(target), "meta": {"_type": "gradio.FileData"}},
            )
            assert event == "error", target
    secret = (home / "secret.key").read_text(encoding="utf-8").strip()
    assert secret not in _tickets_text(home)
    copies = [p for p in (home / "uploads").rglob("*") if p.is_file() and secret in p.read_text(errors="replace")]
    assert copies == []


def test_f01_a_real_upload_is_accepted_and_then_removed_from_the_upload_folder(app):
    base, home = app
    with httpx.Client() as client:
        login(client, base, "student")
        uploaded = client.post(
            f"{base}/gradio_api/upload",
            files={"files": ("circular.txt", b"Circular 3/2026: the revaluation fee is Rs. 800.", "text/plain")},
        )
        assert uploaded.status_code == 200, uploaded.text
        path = uploaded.json()[0]
        assert os.path.exists(path)
        event, data = call(
            client,
            base,
            "file_claim",
            "The revaluation fee is now Rs. 800 per course.",
            "",
            {"path": path, "meta": {"_type": "gradio.FileData"}, "orig_name": "circular.txt"},
        )
    assert event == "complete" and str(data[0]).startswith("Filed as"), data
    assert "Circular 3/2026" in _tickets_text(home)
    assert not os.path.exists(path)  # finding 12: the upload cache does not keep it


# -- 2. cross-origin use -----------------------------------------------------------------------


def test_f02_cross_origin_requests_are_refused_and_same_origin_works(app):
    base, _ = app
    with httpx.Client() as client:
        login(client, base, "student")
        foreign = {"Origin": EVIL}
        assert client.get(base + "/config", headers=foreign).status_code == 403
        assert client.post(f"{base}/gradio_api/call/my_claims", json={"data": []}, headers=foreign).status_code == 403
        assert (
            client.post(
                f"{base}/gradio_api/call/set_tau", json={"data": [0.01]}, headers={"Referer": EVIL + "/page"}
            ).status_code
            == 403
        )
        preflight = client.options(
            f"{base}/gradio_api/queue/join",
            headers={
                **foreign,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type",
            },
        )
        assert preflight.status_code == 403
        assert "access-control-allow-origin" not in preflight.headers
        assert client.get(base + "/config", headers={"Origin": "null"}).status_code == 403
        # the app's own origin (what its page sends) still works
        assert client.get(base + "/config", headers={"Origin": base}).status_code == 200
        event, _ = call(client, base, "my_claims")
        assert event == "complete"
    with httpx.Client() as client:  # a cross-site login form post is refused too
        refused = client.post(
            base + "/login", data={"username": "student", "password": DEMO_PASSWORD}, headers={"Origin": EVIL}
        )
        assert refused.status_code == 403 and "warrant_session" not in client.cookies


# -- 3. logout ends the session on the server ----------------------------------------------------


def test_f03_logout_is_a_post_and_a_copied_cookie_stops_working(app):
    base, _ = app
    with httpx.Client() as client:
        login(client, base, "student")
        copied = client.cookies["warrant_session"]
        page = client.get(base + "/logout", follow_redirects=False)  # GET only shows the button
        assert page.status_code == 200 and 'method="post"' in page.text
        assert client.get(base + "/config").status_code == 200
        response = client.post(base + "/logout", follow_redirects=False)
        assert response.status_code == 303 and response.headers["location"].endswith("/login")
    with httpx.Client(cookies={"warrant_session": copied}) as thief:
        assert thief.get(base + "/config").status_code == 401
    with httpx.Client() as client:  # logging in again works
        assert login(client, base, "student").status_code == 303
        assert client.get(base + "/config").status_code == 200


def test_f03_a_role_change_ends_the_sessions_of_that_account(app):
    base, _ = app
    with httpx.Client() as admin, httpx.Client() as erin:
        login(admin, base, "admin")
        call(admin, base, "create_account", "erin", "erin-pass-123", "user")
        assert login(erin, base, "erin", "erin-pass-123").status_code == 303
        assert erin.get(base + "/config").status_code == 200
        _, data = call(admin, base, "set_role", "erin", "reviewer")
        assert data[0] == "erin: user -> reviewer."
        assert erin.get(base + "/config").status_code == 401


# -- 10. internal errors do not reach clients ----------------------------------------------------


def test_f10_an_internal_error_reaches_the_client_as_a_plain_failure(app):
    base, _ = app
    with httpx.Client(timeout=120) as client:
        login(client, base, "admin")
        started = client.post(f"{base}/gradio_api/call/set_tau", json={"data": [{"__proto__": 1}]})
        assert started.status_code == 200
        stream = client.get(f"{base}/gradio_api/call/set_tau/{started.json()['event_id']}", timeout=120).text
    assert "event: error" in stream
    for leak in ("Traceback", "float", "TypeError", "ValueError", ".py"):
        assert leak not in stream, stream


# -- 11. state directory permissions --------------------------------------------------------------


def test_f11_state_directory_is_private(app):
    _, home = app
    assert stat.S_IMODE(home.stat().st_mode) == 0o700
    loose = []
    for root, dirs, files in os.walk(home):
        for name in dirs + files:
            path = os.path.join(root, name)
            if not os.path.islink(path) and os.lstat(path).st_mode & 0o077:
                loose.append(path)
    assert loose == []


# -- 12. upload size limit -------------------------------------------------------------------------


def test_f12_uploads_over_the_limit_are_refused(app):
    base, _ = app
    with httpx.Client() as client:
        login(client, base, "student")
        big = client.post(
            f"{base}/gradio_api/upload", files={"files": ("big.txt", b"a" * (11 * 1024 * 1024), "text/plain")}
        )
        assert big.status_code == 413


# -- 14. security headers, and the API description behind the login ------------------------------


def test_f14_security_headers_and_openapi_needs_login(app):
    base, _ = app
    with httpx.Client() as client:
        for path in ("/login", "/config"):
            headers = client.get(base + path).headers
            csp = headers.get("content-security-policy", "")
            assert "frame-ancestors 'self'" in csp and "img-src 'self' data: blob:" in csp, path
            assert headers.get("x-frame-options") == "SAMEORIGIN"
            assert headers.get("x-content-type-options") == "nosniff"
            assert headers.get("referrer-policy") == "same-origin"
        assert client.get(base + "/openapi.json").status_code == 401
        login(client, base, "student")
        assert client.get(base + "/config").status_code == 200


# -- 4. login throttle: per address, and no lock-out of the real user (last: spends the budget) --


def _attempt(base: str, username: str, password: str, address: str) -> httpx.Response:
    with httpx.Client() as client:
        return client.post(
            base + "/login",
            data={"username": username, "password": password},
            headers={"X-Forwarded-For": address},
            follow_redirects=False,
        )


def test_f04_guessing_cannot_lock_out_the_real_user_but_an_address_is_limited(app):
    base, _ = app
    assert _attempt(base, "admin", DEMO_PASSWORD, "10.0.0.3").status_code == 303  # admin's usual address
    for _ in range(6):  # an attacker at another address guesses admin's password
        assert _attempt(base, "admin", "wrong-guess-123", "10.0.0.66").status_code == 401
    # the attacker, even with the right password, is stopped; the admin from a known address is not
    assert "Too many failed attempts" in _attempt(base, "admin", DEMO_PASSWORD, "10.0.0.66").text
    assert _attempt(base, "admin", DEMO_PASSWORD, "10.0.0.3").status_code == 303
    # spraying many usernames (long ones too) from one address ends in a refusal for that address
    names = [f"user{n}-" + "x" * 4000 if n % 2 else f"user{n}" for n in range(34)]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda name: _attempt(base, name, "wrong-guess-123", "10.0.0.99"), names))
    assert all(a.status_code == 401 for a in answers)
    refused = _attempt(base, "student", DEMO_PASSWORD, "10.0.0.99")
    assert refused.status_code == 401 and "from your network" in refused.text
    assert _attempt(base, "student", DEMO_PASSWORD, "10.0.0.100").status_code == 303
