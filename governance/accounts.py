"""Local accounts: usernames, roles and scrypt password hashes in `<state>/accounts.json` (TinyDB).

Passwords are never stored: each account keeps a random 16-byte salt and
`hashlib.scrypt(password, salt, n=2**14, r=8, p=1)`, compared in constant time. Failed logins are
counted per username in memory; five failures inside five minutes lock that username out for the
rest of the window, so guessing is slow even when the attacker spreads over many connections.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from tinydb import Query, TinyDB

from governance.identity import ROLES, Identity

USERNAME_RE = re.compile(r"^[A-Za-z0-9._-]{3,32}$")
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
MIN_PASSWORD_CHARS = 8
MAX_PASSWORD_CHARS = 256
DEMO_ACCOUNTS = (("student", "user"), ("reviewer", "reviewer"), ("admin", "admin"))
_LOCKS: dict[str, threading.RLock] = {}
_LOCKS_GUARD = threading.Lock()


class LoginRefused(ValueError):
    """Wrong credentials or too many attempts; the message is safe to show."""


def validate_username(username: str) -> str:
    """Return the username if it is 3-32 letters, digits, `.`, `_` or `-`; raise ValueError otherwise.

    Besides readability this keeps `..`-only names, slashes and control characters out of ids.
    """
    username = (username or "").strip()
    if not USERNAME_RE.fullmatch(username) or set(username) <= {"."}:
        raise ValueError("A username has 3 to 32 characters: letters, digits, '.', '_' or '-'.")
    return username


def validate_password(password: str) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD_CHARS <= len(password) <= MAX_PASSWORD_CHARS:
        raise ValueError(f"A password has {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_CHARS} characters.")
    return password


def hash_password(password: str, salt: bytes | None = None) -> str:
    """`scrypt$n$r$p$salt_hex$hash_hex` for a fresh random salt (or the one given)."""
    salt = salt if salt is not None else os.urandom(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=SCRYPT_N, r=SCRYPT_R, p=SCRYPT_P, dklen=32)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt_hex, hash_hex = stored.split("$")
        if scheme != "scrypt":
            return False
        digest = hashlib.scrypt(password.encode("utf-8"), salt=bytes.fromhex(salt_hex), n=int(n), r=int(r),
                                p=int(p), dklen=len(hash_hex) // 2)
    except (ValueError, AttributeError):
        return False
    return hmac.compare_digest(digest.hex(), hash_hex)


# A valid hash nobody can match: checking it keeps "no such user" as slow as "wrong password".
_DUMMY_HASH = hash_password(secrets.token_urlsafe(16))


class LoginThrottle:
    """Failures per username in a sliding window; `blocked` once `limit` are inside it."""

    def __init__(self, limit: int = 5, window_s: float = 300.0, clock=time.monotonic) -> None:
        self.limit, self.window_s, self.clock = limit, window_s, clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, key: str) -> deque[float]:
        now = self.clock()
        times = self._failures.setdefault(key, deque())
        while times and now - times[0] > self.window_s:
            times.popleft()
        return times

    def blocked(self, username: str) -> bool:
        with self._lock:
            return len(self._recent(username.lower())) >= self.limit

    def failed(self, username: str) -> None:
        with self._lock:
            self._recent(username.lower()).append(self.clock())

    def succeeded(self, username: str) -> None:
        with self._lock:
            self._failures.pop(username.lower(), None)


@dataclass(frozen=True)
class Account:
    username: str
    role: str
    display_name: str = ""
    provider: str = "local"  # "local" or "oidc"
    user_id: str = ""

    def identity(self) -> Identity:
        return Identity(user_id=self.user_id or f"local:{self.username}", username=self.username,
                        role=self.role, display_name=self.display_name or self.username)


def _lock_for(path: Path) -> threading.RLock:
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(str(path.resolve()), threading.RLock())


class AccountStore:
    """The accounts table. Methods here do no role checks: `ui.service.WarrantService` does."""

    def __init__(self, path: Path, throttle: LoginThrottle | None = None, failure_delay_s: float = 0.5) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = _lock_for(self.path)
        self.throttle = throttle or LoginThrottle()
        self.failure_delay_s = failure_delay_s

    def _db(self) -> TinyDB:
        return TinyDB(self.path, indent=1, ensure_ascii=False)

    @staticmethod
    def _account(row: dict) -> Account:
        return Account(username=row["username"], role=row["role"], display_name=row.get("display_name", ""),
                       provider=row.get("provider", "local"), user_id=row.get("user_id", ""))

    def get(self, username: str) -> Account | None:
        try:
            username = validate_username(username)
        except ValueError:
            return None
        with self._lock, self._db() as db:
            row = db.get(Query().username == username)
        return self._account(row) if row else None

    def list(self) -> list[Account]:
        with self._lock, self._db() as db:
            rows = db.all()
        return sorted((self._account(r) for r in rows), key=lambda a: a.username)

    def create(self, username: str, password: str | None, role: str = "user", display_name: str = "",
               provider: str = "local", user_id: str = "") -> Account:
        """Add an account; local accounts need a password, SSO accounts (provider "oidc") have none."""
        username = validate_username(username)
        if role not in ROLES:
            raise ValueError(f"Role must be one of: {', '.join(ROLES)}.")
        row = {"username": username, "role": role, "display_name": display_name[:80], "provider": provider,
               "user_id": user_id or f"local:{username}", "created": time.time(),
               "password": hash_password(validate_password(password)) if provider == "local" else ""}
        with self._lock, self._db() as db:
            if db.contains(Query().username == username):
                raise ValueError(f"The username {username!r} is taken.")
            db.insert(row)
        return self._account(row)

    def set_role(self, username: str, role: str) -> tuple[str, str]:
        """Change a role; returns (old role, new role)."""
        if role not in ROLES:
            raise ValueError(f"Role must be one of: {', '.join(ROLES)}.")
        username = validate_username(username)
        with self._lock, self._db() as db:
            row = db.get(Query().username == username)
            if row is None:
                raise ValueError(f"No account named {username!r}.")
            db.update({"role": role}, Query().username == username)
        return row["role"], role

    def set_password(self, username: str, password: str) -> None:
        username = validate_username(username)
        digest = hash_password(validate_password(password))
        with self._lock, self._db() as db:
            if not db.update({"password": digest}, Query().username == username):
                raise ValueError(f"No account named {username!r}.")

    def authenticate(self, username: str, password: str) -> Account:
        """The account for these credentials, or LoginRefused after a short delay.

        The delay and the per-username throttle apply to unknown usernames too, so the answer
        does not reveal which usernames exist.
        """
        name = (username or "").strip()
        if self.throttle.blocked(name):
            raise LoginRefused("Too many failed attempts for this username. Please wait a few minutes and try again.")
        try:
            account_name = validate_username(name)
        except ValueError:
            account_name = ""
        with self._lock, self._db() as db:
            row = db.get(Query().username == account_name) if account_name else None
        stored = row.get("password", "") if row and row.get("provider", "local") == "local" else ""
        ok = verify_password(password or "", stored or _DUMMY_HASH) and bool(stored)
        if not ok:
            self.throttle.failed(name)
            time.sleep(self.failure_delay_s)
            raise LoginRefused("Wrong username or password.")
        self.throttle.succeeded(name)
        return self._account(row)


def ensure_demo_accounts(store: AccountStore, home: Path, demo_password: str = "") -> dict[str, str]:
    """Create the demo student/reviewer/admin accounts when there are no accounts yet.

    Returns {username: password} only for passwords this call generated (to print once); they are
    also written to `<home>/demo_passwords.txt` with mode 0600, for the admin.
    """
    if store.list():
        return {}
    generated: dict[str, str] = {}
    for username, role in DEMO_ACCOUNTS:
        password = demo_password or secrets.token_urlsafe(12)
        if not demo_password:
            generated[username] = password
        store.create(username, password, role, display_name=username.capitalize())
    if generated:
        path = Path(home) / "demo_passwords.txt"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("# Demo accounts created on first start. Change them or delete this file.\n")
            for username, password in generated.items():
                fh.write(f"{username}\t{password}\n")
        os.chmod(path, 0o600)
    return generated
