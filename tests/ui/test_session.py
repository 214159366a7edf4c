"""The signed session cookie and the secret it is signed with."""

from __future__ import annotations

import stat
from types import SimpleNamespace

import pytest

from governance.identity import Identity, PermissionDenied
from ui.session import SessionCookies, identity_reader, load_or_create_secret, username_reader


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
