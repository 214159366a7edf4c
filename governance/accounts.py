"""Local accounts: usernames, roles and argon2id password hashes in `<state>/accounts.json` (TinyDB).

Passwords are never stored: each account keeps an argon2id hash (argon2-cffi, with OWASP's
parameters: 19 MiB, 2 passes, 1 lane), compared in constant time; hashes from older versions (scrypt) still verify
and are replaced by argon2id at the next successful login. Usernames are compared Unicode-
normalised (NFKC) and case-insensitively, so `Admin` and `admin` are one account.

Failed logins are throttled per account *and* per client address (`LoginThrottle`): keys are
normalised and capped, forgotten after the window, and their number is bounded. Five failures
inside five minutes stop further guesses at that account, except from an address that has logged
into it before, which gets through with the right password after a delay: an attacker cannot keep
the real user out. Each attempt is counted before its password is checked, so simultaneous
guesses cannot all slip under the limit. Each account also has a session version (`sv`): logout, a
password change and a role change raise it, which ends every session issued before. An account's
`groups` name the restricted documents it may read (pipeline.ground.audience); they are read with
the account on every request, so a change applies at once.

The file is written through `pipeline.ground.storage` (atomic, cross-process lock, damaged-file recovery).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
import time
import unicodedata
from collections import OrderedDict, deque
from dataclasses import dataclass
from pathlib import Path

from argon2 import PasswordHasher
from argon2 import exceptions as argon2_errors
from tinydb import Query

from governance.identity import ROLES, Identity
from pipeline.ground.audience import normalise_groups
from pipeline.ground.storage import JSONFile, write_atomic

USERNAME_RE = re.compile(r"^[A-Za-z0-9._-]{3,32}$")
# Only for hashes written before argon2id: they verify, and are replaced at the next login.
SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1
MIN_PASSWORD_CHARS = 8
MAX_PASSWORD_CHARS = 256
MAX_THROTTLE_KEY_CHARS = 64
DEMO_ACCOUNTS = (("student", "user"), ("reviewer", "reviewer"), ("admin", "admin"))
# OWASP's argon2id recommendation (19 MiB, 2 passes, 1 lane): ~0.1-0.2 s on two busy cores, and bounded memory
# when many people log in at once.
_HASHER = PasswordHasher(time_cost=2, memory_cost=19 * 1024, parallelism=1)


class LoginRefused(ValueError):
    """Wrong credentials or too many attempts; the message is safe to show."""


def normalise_username(username: str) -> str:
    """NFKC-normalised and stripped: full-width and other look-alike forms become plain ASCII."""
    return unicodedata.normalize("NFKC", username or "").strip()


def username_key(username: str) -> str:
    """What two usernames are compared by: normalised and case-folded (`Admin` == `admin`)."""
    return normalise_username(username).casefold()


def validate_username(username: str) -> str:
    """Return the (NFKC-normalised) username if it is 3-32 letters, digits, `.`, `_` or `-`.

    Raises ValueError otherwise. Besides readability this keeps `..`-only names, slashes and
    control characters out of ids.
    """
    username = normalise_username(username)
    if not USERNAME_RE.fullmatch(username) or set(username) <= {"."}:
        raise ValueError("A username has 3 to 32 characters: letters, digits, '.', '_' or '-'.")
    return username


def validate_password(password: str | None) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD_CHARS <= len(password) <= MAX_PASSWORD_CHARS:
        raise ValueError(f"A password has {MIN_PASSWORD_CHARS} to {MAX_PASSWORD_CHARS} characters.")
    return password


def hash_password(password: str) -> str:
    """An argon2id hash (`$argon2id$v=19$m=...`) with a fresh random salt."""
    return _HASHER.hash(password)


def _verify_scrypt(password: str, stored: str) -> bool:
    try:
        scheme, n, r, p, salt_hex, hash_hex = stored.split("$")
        if scheme != "scrypt":
            return False
        digest = hashlib.scrypt(
            password.encode("utf-8"),
            salt=bytes.fromhex(salt_hex),
            n=int(n),
            r=int(r),
            p=int(p),
            dklen=len(hash_hex) // 2,
            maxmem=256 * 1024 * 1024,
        )
    except (ValueError, AttributeError):
        return False
    return hmac.compare_digest(digest.hex(), hash_hex)


def verify_password(password: str, stored: str) -> bool:
    if not isinstance(stored, str) or not stored:
        return False
    if stored.startswith("scrypt$"):
        return _verify_scrypt(password, stored)
    try:
        return _HASHER.verify(stored, password)
    except (argon2_errors.VerificationError, argon2_errors.InvalidHashError, ValueError):
        return False


def needs_rehash(stored: str) -> bool:
    """True for hashes weaker than today's parameters (scrypt from older versions included)."""
    if not stored.startswith("$argon2"):
        return True
    try:
        return _HASHER.check_needs_rehash(stored)
    except (argon2_errors.InvalidHashError, ValueError):
        return True


# A valid hash nobody can match: checking it keeps "no such user" as slow as "wrong password".
_DUMMY_HASH = hash_password(secrets.token_urlsafe(16))


def throttle_key(username: str) -> str:
    """The throttle's key for a typed username: normalised, case-folded, at most 64 characters."""
    return username_key((username or "")[: 4 * MAX_THROTTLE_KEY_CHARS])[:MAX_THROTTLE_KEY_CHARS]


class _Window:
    """Failure times per key inside a sliding window; at most `max_keys` keys (oldest dropped)."""

    def __init__(self, window_s: float, max_keys: int, clock) -> None:
        self.window_s, self.max_keys, self.clock = window_s, max_keys, clock
        self.times: OrderedDict[str, deque[float]] = OrderedDict()

    def _expire(self) -> None:
        now = self.clock()
        while self.times:
            key, times = next(iter(self.times.items()))
            if times and now - times[-1] <= self.window_s:
                break
            del self.times[key]

    def count(self, key: str) -> int:
        self._expire()
        times = self.times.get(key)
        if not times:
            return 0
        now = self.clock()
        while times and now - times[0] > self.window_s:
            times.popleft()
        return len(times)

    def add(self, key: str) -> None:
        self._expire()
        times = self.times.pop(key, None) or deque(maxlen=1000)
        times.append(self.clock())
        self.times[key] = times  # most recent last, so expiry and eviction start from the front
        while len(self.times) > self.max_keys:
            self.times.popitem(last=False)

    def clear(self, key: str) -> None:
        self.times.pop(key, None)

    def take_back(self, key: str) -> None:
        """Forget the newest time of `key` (an attempt counted in advance that did not fail)."""
        times = self.times.get(key)
        if times:
            times.pop()


class LoginThrottle:
    """Failed logins per account and per client address, in a sliding window.

    - an account with `limit` failures inside `window_s` is `blocked` for addresses that have not
      logged into it before; a known address gets through with the right password, after a delay;
    - an address with `address_limit` failures inside the window is refused, except for an
      account it has logged into before (so nobody sharing or borrowing an address locks a real
      user out);
    - an attempt is counted, under the lock, *before* its password is checked (`begin`), and
      taken back when it succeeds: attempts made at the same moment see each other, so 24
      simultaneous guesses against a limit of 5 get 5 password checks, not 24;
    - keys are normalised and capped (`throttle_key`), expire with the window, and each table
      holds at most `max_keys` keys, so failed logins cannot grow memory without bound.
    """

    def __init__(
        self,
        limit: int = 5,
        window_s: float = 300.0,
        clock=time.monotonic,
        address_limit: int = 30,
        max_keys: int = 10_000,
        known_window_s: float = 30 * 24 * 3600,
    ) -> None:
        self.limit, self.window_s, self.clock = limit, window_s, clock
        self.address_limit = address_limit
        self._accounts = _Window(window_s, max_keys, clock)
        self._addresses = _Window(window_s, max_keys, clock)
        self._known = _Window(known_window_s, max_keys, clock)  # (account, address) pairs that logged in
        self._lock = threading.Lock()

    def blocked(self, username: str, address: str = "") -> bool:
        """Too many failures for this account, and `address` is not one it has logged in from."""
        with self._lock:
            key = throttle_key(username)
            return self._accounts.count(key) >= self.limit and not self._is_known(key, address)

    def address_blocked(self, address: str) -> bool:
        with self._lock:
            return bool(address) and self._addresses.count(address[:64]) >= self.address_limit

    def under_attack(self, username: str) -> bool:
        """The account has `limit` failures in the window (a known address then waits longer)."""
        with self._lock:
            return self._accounts.count(throttle_key(username)) >= self.limit

    def _is_known(self, key: str, address: str) -> bool:
        return bool(address) and self._known.count(f"{key}\x00{address[:64]}") > 0

    def begin(self, username: str, address: str = "") -> str:
        """Admit one login attempt and count it as a failure until `succeeded` says otherwise:
        "" when it may go on, "address" or "account" when too many failed already."""
        with self._lock:
            key = throttle_key(username)
            known = self._is_known(key, address)
            if address and not known and self._addresses.count(address[:64]) >= self.address_limit:
                return "address"
            if not known and self._accounts.count(key) >= self.limit:
                return "account"
            self._accounts.add(key)
            if address:
                self._addresses.add(address[:64])
            return ""

    def failed(self, username: str, address: str = "") -> None:
        with self._lock:
            self._accounts.add(throttle_key(username))
            if address:
                self._addresses.add(address[:64])

    def succeeded(self, username: str, address: str = "", counted: bool = False) -> None:
        """A login succeeded (`counted`: its attempt was counted by `begin`, which is taken back)."""
        with self._lock:
            key = throttle_key(username)
            if counted:
                self._accounts.take_back(key)
                if address:
                    self._addresses.take_back(address[:64])
            if self._accounts.count(key) < self.limit:
                self._accounts.clear(key)  # under attack, the failures stay: no fresh guesses for anyone
            if address:
                self._known.add(f"{key}\x00{address[:64]}")

    def size(self) -> int:
        """How many keys the throttle holds (for tests and monitoring)."""
        with self._lock:
            for table in (self._accounts, self._addresses, self._known):
                table._expire()
            return len(self._accounts.times) + len(self._addresses.times) + len(self._known.times)


@dataclass(frozen=True)
class Account:
    username: str
    role: str
    display_name: str = ""
    provider: str = "local"  # "local" or "oidc"
    user_id: str = ""
    groups: tuple[str, ...] = ()

    def identity(self) -> Identity:
        return Identity(
            user_id=self.user_id or f"local:{self.username}",
            username=self.username,
            role=self.role,
            display_name=self.display_name or self.username,
            groups=self.groups,
        )


def _same_user(key: str):
    """A TinyDB test: the row's username compares equal to `key` (normalised, case-folded)."""
    return Query().username.test(lambda value: isinstance(value, str) and username_key(value) == key)


class AccountStore:
    """The accounts table. Methods here do no role checks: `ui.service.WarrantService` does."""

    def __init__(self, path: Path, throttle: LoginThrottle | None = None, failure_delay_s: float = 0.5) -> None:
        self.path = Path(path)
        self._file = JSONFile(self.path, indent=1)
        self.throttle = throttle or LoginThrottle()
        self.failure_delay_s = failure_delay_s

    @staticmethod
    def _account(row: dict) -> Account:
        return Account(
            username=row["username"],
            role=row["role"],
            display_name=row.get("display_name", ""),
            provider=row.get("provider", "local"),
            user_id=row.get("user_id", ""),
            groups=_stored_groups(row.get("groups")),
        )

    def _row(self, username: str) -> dict | None:
        try:
            key = username_key(validate_username(username))
        except ValueError:
            return None
        with self._file.open() as db:
            row = db.get(_same_user(key))
        return dict(row) if row else None

    def get(self, username: str) -> Account | None:
        row = self._row(username)
        return self._account(row) if row else None

    def session_version(self, username: str) -> int | None:
        """The account's current session version (None when there is no such account)."""
        row = self._row(username)
        return int(row.get("sv", 0)) if row else None

    def end_sessions(self, username: str) -> int:
        """End every session of this account (logout, password or role change); the new version."""
        return self._bump(username)

    def _bump(self, username: str, changes: dict | None = None) -> int:
        key = username_key(validate_username(username))
        with self._file.open() as db:
            row = db.get(_same_user(key))
            if row is None:
                raise ValueError(f"No account named {username!r}.")
            version = int(row.get("sv", 0)) + 1
            db.update({**(changes or {}), "sv": version}, _same_user(key))
        return version

    def list(self) -> list[Account]:
        with self._file.open() as db:
            rows = db.all()
        return sorted((self._account(r) for r in rows), key=lambda a: a.username)

    def create(
        self,
        username: str,
        password: str | None,
        role: str = "user",
        display_name: str = "",
        provider: str = "local",
        user_id: str = "",
    ) -> Account:
        """Add an account; local accounts need a password, SSO accounts (provider "oidc") have none."""
        username = validate_username(username)
        if role not in ROLES:
            raise ValueError(f"Role must be one of: {', '.join(ROLES)}.")
        row = {
            "username": username,
            "role": role,
            "display_name": display_name[:80],
            "provider": provider,
            "user_id": user_id or f"local:{username}",
            "created": time.time(),
            "sv": 0,
            "password": hash_password(validate_password(password)) if provider == "local" else "",
        }
        with self._file.open() as db:
            if db.contains(_same_user(username_key(username))):
                raise ValueError(f"The username {username!r} is taken.")
            db.insert(row)
        return self._account(row)

    def set_role(self, username: str, role: str) -> tuple[str, str]:
        """Change a role (ending the account's sessions); returns (old role, new role)."""
        if role not in ROLES:
            raise ValueError(f"Role must be one of: {', '.join(ROLES)}.")
        row = self._row(username)
        if row is None:
            raise ValueError(f"No account named {username!r}.")
        self._bump(row["username"], {"role": role})
        return row["role"], role

    def set_groups(self, username: str, groups) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Replace an account's groups ("hr, finance", a list, or "" for none); returns (old, new).

        Sessions go on: the groups are read with the account on every request."""
        new = normalise_groups(groups)
        key = username_key(validate_username(username))
        with self._file.open() as db:
            row = db.get(_same_user(key))
            if row is None:
                raise ValueError(f"No account named {username!r}.")
            old = _stored_groups(row.get("groups"))
            if old != new:
                db.update({"groups": list(new)}, _same_user(key))
        return old, new

    def set_password(self, username: str, password: str) -> None:
        """Set a new password and end the account's sessions."""
        validate_username(username)
        self._bump(username, {"password": hash_password(validate_password(password))})

    def authenticate(self, username: str, password: str, address: str = "") -> Account:
        """The account for these credentials, or LoginRefused after a short delay.

        `address` is the client's address (for the per-address limit and to recognise an address
        that logged into this account before). The delay and the throttle apply to unknown
        usernames too, so the answer does not reveal which usernames exist.
        """
        name = (username or "")[: 4 * MAX_THROTTLE_KEY_CHARS]
        refused = self.throttle.begin(name, address)  # counted as a failure until it succeeds
        if refused:
            time.sleep(self.failure_delay_s)
            if refused == "address":
                raise LoginRefused(
                    "Too many failed attempts from your network. Please wait a few minutes and try again."
                )
            raise LoginRefused("Too many failed attempts for this username. Please wait a few minutes and try again.")
        row = self._row(name)
        stored = row.get("password", "") if row and row.get("provider", "local") == "local" else ""
        ok = verify_password(password or "", stored or _DUMMY_HASH) and bool(stored)
        if not ok or row is None:  # ok only with a row: without one nothing is stored
            time.sleep(self.failure_delay_s)
            raise LoginRefused("Wrong username or password.")
        self.throttle.succeeded(name, address, counted=True)
        if self.throttle.under_attack(name):
            time.sleep(2 * self.failure_delay_s)  # a known address, while someone guesses: slowed, not locked
        if needs_rehash(stored):
            with self._file.open() as db:
                db.update({"password": hash_password(password)}, _same_user(username_key(row["username"])))
        return self._account(row)


def _stored_groups(value) -> tuple[str, ...]:
    """An account row's groups; a row a hand edit broke gives none rather than failing the login."""
    try:
        return normalise_groups(value if isinstance(value, list) else [])
    except ValueError:
        return ()


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
        lines = ["# Demo accounts created on first start. Change them or delete this file.\n"]
        lines += [f"{username}\t{password}\n" for username, password in generated.items()]
        write_atomic(path, "".join(lines), keep_backup=False)  # mode 0600
    return generated
