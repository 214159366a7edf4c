"""Local accounts: scrypt hashes, throttling, username rules, demo accounts, audited admin actions."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path

import pytest

from governance.accounts import (
    AccountStore,
    LoginRefused,
    LoginThrottle,
    ensure_demo_accounts,
    hash_password,
    validate_username,
    verify_password,
)
from governance.identity import Identity, PermissionDenied


@pytest.fixture()
def store(tmp_path: Path) -> AccountStore:
    return AccountStore(tmp_path / "accounts.json", failure_delay_s=0.0)


def test_hash_is_salted_argon2id_and_verifies():
    first, second = hash_password("correct horse"), hash_password("correct horse")
    assert first.startswith("$argon2id$v=19$m=19456,t=2,p=1$")
    assert first != second  # a fresh random salt each time
    assert verify_password("correct horse", first)
    assert not verify_password("wrong horse", first)
    assert not verify_password("x", "not-a-hash")


def test_password_is_never_stored_in_clear(store: AccountStore):
    store.create("alice", "s3cret-pass", "user")
    raw = store.path.read_text(encoding="utf-8")
    assert "s3cret-pass" not in raw and "$argon2id$" in raw


@pytest.mark.parametrize("name", ["ab", "a" * 33, "../etc", "a/b", "al ice", "..", "...", "bob\x00", "élan", ""])
def test_username_validation_refuses_path_tricks_and_odd_names(name: str):
    with pytest.raises(ValueError):
        validate_username(name)


@pytest.mark.parametrize("name", ["bob", "a.b_c-d", "X" * 32, "s12"])
def test_username_validation_accepts_plain_names(name: str):
    assert validate_username(name) == name


def test_authenticate_accepts_right_password_and_refuses_wrong(store: AccountStore):
    store.create("alice", "s3cret-pass", "reviewer")
    assert store.authenticate("alice", "s3cret-pass").identity() == Identity(
        "local:alice", "alice", "reviewer", "alice"
    )
    with pytest.raises(LoginRefused, match="Wrong username or password"):
        store.authenticate("alice", "nope-nope")
    with pytest.raises(LoginRefused, match="Wrong username or password"):
        store.authenticate("nobody", "s3cret-pass")


def test_wrong_password_is_delayed(tmp_path: Path):
    slow = AccountStore(tmp_path / "a.json", failure_delay_s=0.5)
    slow.create("alice", "s3cret-pass")
    start = time.monotonic()
    with pytest.raises(LoginRefused):
        slow.authenticate("alice", "bad-password")
    assert time.monotonic() - start >= 0.5


def test_five_failures_in_window_throttle_even_the_right_password(store: AccountStore):
    store.create("alice", "s3cret-pass")
    for _ in range(5):
        with pytest.raises(LoginRefused):
            store.authenticate("alice", "bad-password")
    with pytest.raises(LoginRefused, match="Too many failed attempts"):
        store.authenticate("alice", "s3cret-pass")


def test_throttle_forgets_failures_after_the_window():
    now = [0.0]
    throttle = LoginThrottle(limit=5, window_s=300, clock=lambda: now[0])
    for _ in range(5):
        throttle.failed("alice")
    assert throttle.blocked("alice") and not throttle.blocked("bob")
    now[0] = 301.0
    assert not throttle.blocked("alice")


def test_duplicate_username_and_unknown_role_refused(store: AccountStore):
    store.create("alice", "s3cret-pass")
    with pytest.raises(ValueError, match="taken"):
        store.create("alice", "another-pass")
    with pytest.raises(ValueError, match="Role"):
        store.create("bob", "s3cret-pass", "superuser")
    with pytest.raises(ValueError, match="characters"):
        store.create("carol", "short")


def test_demo_accounts_with_configured_password(store: AccountStore, tmp_path: Path):
    assert ensure_demo_accounts(store, tmp_path, "demo-pass-123") == {}
    roles = {a.username: a.role for a in store.list()}
    assert roles == {"student": "user", "reviewer": "reviewer", "admin": "admin"}
    assert store.authenticate("admin", "demo-pass-123").role == "admin"
    assert not (tmp_path / "demo_passwords.txt").exists()


def test_demo_accounts_generated_once_and_saved_private(store: AccountStore, tmp_path: Path):
    generated = ensure_demo_accounts(store, tmp_path)
    assert set(generated) == {"student", "reviewer", "admin"}
    saved = tmp_path / "demo_passwords.txt"
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    assert generated["student"] in saved.read_text()
    assert store.authenticate("student", generated["student"]).role == "user"
    assert ensure_demo_accounts(store, tmp_path) == {}  # second start: nothing new


# -- the service layer: role checks and audit records ------------------------------------------


@pytest.fixture(scope="module")
def service(tmp_path_factory, embed_model):
    from pipeline.ground.config import load_config
    from tests.conftest import TINY_FEES
    from ui.service import WarrantService

    root = tmp_path_factory.mktemp("svc")
    docs = root / "docs"
    docs.mkdir()
    (docs / "fees.md").write_text(TINY_FEES, encoding="utf-8")
    config = load_config().with_home(root / "home")
    from dataclasses import replace

    config = replace(config, docs_dir=docs, demo_password="demo-pass-123")
    svc = WarrantService(config, embed_model=embed_model)
    svc.accounts.failure_delay_s = 0.0
    svc.ensure_demo_accounts()
    return svc


def test_admin_changes_role_and_it_is_audited(service):
    admin = service.login("admin", "demo-pass-123")
    service.create_account(admin, "dana", "dana-pass-1", "user")
    assert service.set_role(admin, "dana", "reviewer") == "dana: user -> reviewer."
    assert service.identity_for("dana").role == "reviewer"
    events = [(r["event"], r["details"].get("username")) for r in service.audit.records()]
    assert ("account_created", "dana") in events and ("role_change", "dana") in events
    assert service.audit.verify().ok


def test_student_cannot_manage_accounts_or_tau(service):
    student = service.login("student", "demo-pass-123")
    before = len(service.audit.records())
    for call in (
        lambda: service.set_role(student, "student", "admin"),
        lambda: service.create_account(student, "eve", "eve-pass-12", "admin"),
        lambda: service.list_accounts(student),
        lambda: service.set_tau(student, 0.1),
    ):
        with pytest.raises(PermissionDenied):
            call()
    assert service.identity_for("student").role == "user"
    assert service.accounts.get("eve") is None
    assert len(service.audit.records()) == before


def test_last_admin_cannot_be_demoted(service):
    admin = service.login("admin", "demo-pass-123")
    with pytest.raises(ValueError, match="last admin"):
        service.set_role(admin, "admin", "user")


def test_tau_change_is_audited_and_persisted(service):
    admin = service.login("admin", "demo-pass-123")
    old = service.engine.tau
    service.set_tau(admin, 0.61)
    assert service.engine.tau == pytest.approx(0.61)
    assert json.loads(service.settings_path.read_text())["tau"] == pytest.approx(0.61)
    assert service.audit.records()[-1]["event"] == "tau_change"
    with pytest.raises(ValueError):
        service.set_tau(admin, 1.5)
    service.set_tau(admin, old)


# -- issue 15 ----------------------------------------------------------------------------------


def test_usernames_are_case_insensitive_and_unicode_normalised(store: AccountStore):
    """Finding 13: `Admin`, `ADMIN` and a full-width `Ａdmin` are the account `admin`."""
    store.create("admin", "s3cret-pass", "admin")
    for typed in ("Admin", "ADMIN", "\uff21dmin"):
        assert store.authenticate(typed, "s3cret-pass").username == "admin"
        account = store.get(typed)
        assert account is not None and account.username == "admin"
    with pytest.raises(ValueError, match="taken"):
        store.create("ADMIN", "another-pass", "user")


def test_an_old_scrypt_hash_still_logs_in_and_is_replaced_by_argon2id(store: AccountStore):
    """Finding 13: hashes from before are upgraded at the next successful login."""
    import hashlib
    import os as _os

    salt = _os.urandom(16)
    old = (
        "scrypt$16384$8$1$"
        + salt.hex()
        + "$"
        + hashlib.scrypt(b"s3cret-pass", salt=salt, n=2**14, r=8, p=1, dklen=32).hex()
    )
    store.create("bob", "placeholder-pass")
    with store._file.open() as db:
        db.update({"password": old})
    assert store.authenticate("bob", "s3cret-pass").username == "bob"
    raw = json.loads(store.path.read_text())
    assert next(iter(raw["_default"].values()))["password"].startswith("$argon2id$")
    assert store.authenticate("bob", "s3cret-pass").username == "bob"


def test_throttle_keys_are_capped_normalised_expired_and_bounded():
    """Finding 4: failed logins with long, varied names cannot grow memory without bound."""
    now = [0.0]
    throttle = LoginThrottle(limit=5, window_s=300, clock=lambda: now[0], max_keys=100)
    for n in range(500):
        throttle.failed(f"user{n}-" + "x" * 1_000_000, address=f"10.0.{n % 250}.1")
    assert throttle.size() <= 200
    assert all(len(k) <= 64 for k in throttle._accounts.times)
    throttle.failed("Alice")
    throttle.failed("ALICE")
    assert throttle._accounts.count("alice") == 2
    now[0] = 1000.0
    throttle.failed("someone-new")
    assert throttle.size() == 1  # everything older than the window is gone


def test_a_known_address_gets_in_while_someone_else_guesses(store: AccountStore):
    """Finding 4: five wrong passwords from elsewhere do not lock the real user out."""
    store.create("alice", "s3cret-pass")
    store.authenticate("alice", "s3cret-pass", address="10.0.0.1")
    for _ in range(6):
        with pytest.raises(LoginRefused):
            store.authenticate("alice", "bad-password", address="10.0.0.66")
    with pytest.raises(LoginRefused, match="Too many failed attempts"):
        store.authenticate("alice", "s3cret-pass", address="10.0.0.66")
    assert store.authenticate("alice", "s3cret-pass", address="10.0.0.1").username == "alice"


def test_an_address_spraying_usernames_is_stopped(tmp_path: Path):
    """Finding 4: a limit per address, not only per account."""
    store = AccountStore(tmp_path / "a.json", throttle=LoginThrottle(address_limit=10), failure_delay_s=0.0)
    store.create("alice", "s3cret-pass")
    for n in range(10):
        with pytest.raises(LoginRefused, match="Wrong"):
            store.authenticate(f"user{n}", "bad-password", address="10.9.9.9")
    with pytest.raises(LoginRefused, match="from your network"):
        store.authenticate("alice", "s3cret-pass", address="10.9.9.9")
    assert store.authenticate("alice", "s3cret-pass", address="10.9.9.10").username == "alice"


def test_password_and_role_changes_and_logout_raise_the_session_version(store: AccountStore):
    """Finding 3: each ends every session issued before it."""
    store.create("alice", "s3cret-pass")
    versions = [store.session_version("alice")]
    store.set_password("alice", "new-s3cret-pass")
    versions.append(store.session_version("alice"))
    store.set_role("alice", "reviewer")
    versions.append(store.session_version("alice"))
    store.end_sessions("Alice")
    versions.append(store.session_version("alice"))
    assert versions == [0, 1, 2, 3]
    assert store.session_version("nobody") is None


def test_a_damaged_accounts_file_does_not_take_the_app_down(tmp_path: Path):
    """Finding 5: the last good copy is used and the damage reported, never an error for everyone."""
    from pipeline.ground.storage import damaged_files

    store = AccountStore(tmp_path / "accounts.json", failure_delay_s=0.0)
    store.create("admin", "s3cret-pass", "admin")
    store.create("student", "s3cret-pass", "user")
    store.path.write_text(store.path.read_text()[:40], encoding="utf-8")  # torn by a crash
    fresh = AccountStore(tmp_path / "accounts.json", failure_delay_s=0.0)
    assert fresh.authenticate("admin", "s3cret-pass").role == "admin"
    assert any(d["path"] == str(store.path) for d in damaged_files())


def test_simultaneous_guesses_cannot_all_slip_under_the_limit(tmp_path: Path):
    """Issue 27, finding 6: 24 wrong passwords at once against a limit of 5 all had their password
    checked; each attempt is now counted before the check, so only 5 are."""
    import concurrent.futures
    import threading

    store = AccountStore(tmp_path / "a.json", throttle=LoginThrottle(limit=5), failure_delay_s=0.0)
    store.create("alice", "s3cret-pass")
    start = threading.Barrier(24)

    def guess(n: int) -> str:
        start.wait()
        try:
            store.authenticate("alice", f"guess-{n}-pass", address=f"10.1.0.{n}")
        except LoginRefused as refused:
            return str(refused)
        return "in"

    with concurrent.futures.ThreadPoolExecutor(24) as pool:
        answers = list(pool.map(guess, range(24)))
    assert sum("Wrong username or password" in a for a in answers) == 5, answers
    assert sum("Too many failed attempts for this username" in a for a in answers) == 19


def test_an_address_over_its_limit_still_lets_in_an_account_that_logged_in_from_it(tmp_path: Path):
    """Issue 27, finding 4: guesses from a shared (or borrowed) address do not lock out the users of it."""
    store = AccountStore(tmp_path / "a.json", throttle=LoginThrottle(address_limit=10), failure_delay_s=0.0)
    store.create("alice", "s3cret-pass")
    store.authenticate("alice", "s3cret-pass", address="10.9.9.9")
    for n in range(12):
        with pytest.raises(LoginRefused):
            store.authenticate(f"user{n}", "bad-password", address="10.9.9.9")
    with pytest.raises(LoginRefused, match="from your network"):
        store.authenticate("mallory", "bad-password", address="10.9.9.9")
    assert store.authenticate("alice", "s3cret-pass", address="10.9.9.9").username == "alice"
