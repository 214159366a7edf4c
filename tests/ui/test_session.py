"""The signed session cookie and the secret it is signed with."""

from __future__ import annotations

import stat
from types import SimpleNamespace

import pytest

from governance.identity import Identity, PermissionDenied
from pipeline.ground.keys import load_or_create_secret
from ui.session import SessionCookies, identity_reader, username_reader


def test_generated_secret_is_persisted_private_and_reused(tmp_path):
    first = load_or_create_secret(tmp_path)
    assert len(first) >= 40 and load_or_create_secret(tmp_path) == first
    assert stat.S_IMODE((tmp_path / "secret.key").stat().st_mode) == 0o600
    assert load_or_create_secret(tmp_path, "configured") == "configured"


def test_cookie_round_trips_and_rejects_tampering_and_other_secrets():
    cookies = SessionCookies("secret-a")
    token = cookies.issue("student")
    assert cookies.read(token) == "student"
    assert cookies.read(token + "x") is None
    assert SessionCookies("secret-b").read(token) is None
    assert cookies.read(None) is None and cookies.read("") is None


def test_cookie_of_a_deleted_account_is_refused():
    cookies = SessionCookies("s")
    reader = username_reader(cookies, lambda name: name == "student")
    assert reader(SimpleNamespace(cookies={"warrant_session": cookies.issue("student")})) == "student"
    assert reader(SimpleNamespace(cookies={"warrant_session": cookies.issue("gone")})) is None


def test_identity_comes_from_the_account_store_with_the_current_role():
    roles = {"student": "user"}
    service = SimpleNamespace(identity_for=lambda n: Identity(f"local:{n}", n, roles[n]) if n in roles else None)
    identity_of = identity_reader(service)
    assert identity_of(SimpleNamespace(username="student")).role == "user"
    roles["student"] = "reviewer"
    assert identity_of(SimpleNamespace(username="student")).role == "reviewer"
    for request in (SimpleNamespace(username=None), SimpleNamespace(username="ghost"), None):
        with pytest.raises(PermissionDenied):
            identity_of(request)


# -- issue 15, finding 3: sessions end on the server ---------------------------------------------


def test_a_session_of_an_older_version_is_refused():
    from ui.session import session_reader

    cookies = SessionCookies("s")
    versions = {"student": 0}
    reader = session_reader(cookies, versions.get)
    token = cookies.issue("student", version=0)
    assert reader(SimpleNamespace(cookies={"warrant_session": token})).username == "student"
    versions["student"] = 1  # logout, password change or role change
    assert reader(SimpleNamespace(cookies={"warrant_session": token})) is None
    fresh = cookies.issue("student", version=1)
    assert reader(SimpleNamespace(cookies={"warrant_session": fresh})).username == "student"


def test_idle_and_absolute_timeouts():
    now = [1_000_000.0]
    cookies = SessionCookies("s", max_age_s=3600, idle_s=600, clock=lambda: now[0])
    token = cookies.issue("student")
    session = cookies.session(token)
    assert session is not None and cookies.renewed(session) is None
    # itsdangerous stamps with the real clock, so idle time is measured from the real signing time
    import time as _time

    signed = cookies.serializer.loads(token, return_timestamp=True)[1].timestamp()
    assert abs(signed - _time.time()) < 5
    now[0] += 3601  # past the absolute lifetime, however active
    assert cookies.session(token) is None


def test_an_idle_cookie_expires(monkeypatch):
    import itsdangerous.timed

    cookies = SessionCookies("s", max_age_s=10 * 3600, idle_s=600)
    token = cookies.issue("student")
    real = itsdangerous.timed.time.time
    monkeypatch.setattr(itsdangerous.timed.time, "time", lambda: real() + 601)
    assert cookies.session(token) is None
    monkeypatch.setattr(itsdangerous.timed.time, "time", lambda: real() + 300)
    cookies.clock = lambda: real() + 300
    session = cookies.session(token)
    assert session is not None and cookies.renewed(session) is not None  # active: the cookie is re-signed
