"""The signed session cookie, and turning a request into the authenticated `Identity`.

The cookie holds only the username and its issue time, signed with itsdangerous; it is checked
on every request (`current_username`, gradio's `auth_dependency`) and the role is read from the
account store on every call (`identity_of`), so a role change or a deleted account takes effect
at once, without waiting for the cookie to expire.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Callable

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from governance.identity import Identity, PermissionDenied

COOKIE_NAME = "warrant_session"
MAX_AGE_S = 7 * 24 * 3600


def load_or_create_secret(home: Path, configured: str = "") -> str:
    """`WARRANT_SECRET` when set, else a random secret kept in `<home>/secret.key` (mode 0600)."""
    if configured:
        return configured
    path = Path(home) / "secret.key"
    if path.exists():
        return path.read_text(encoding="utf-8").strip()
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(48)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(value)
    return value


class SessionCookies:
    """Issue and read the signed cookie that names the logged-in user."""

    def __init__(self, secret: str, max_age_s: int = MAX_AGE_S) -> None:
        self.serializer = URLSafeTimedSerializer(secret, salt="warrant-session")
        self.max_age_s = max_age_s

    def issue(self, username: str) -> str:
        return self.serializer.dumps({"u": username})

    def read(self, token: str | None) -> str | None:
        if not token:
            return None
        try:
            data = self.serializer.loads(token, max_age=self.max_age_s)
        except (BadSignature, SignatureExpired):
            return None
        username = data.get("u") if isinstance(data, dict) else None
        return username if isinstance(username, str) else None


def username_reader(cookies: SessionCookies, account_exists: Callable[[str], bool]) -> Callable:
    """gradio's `auth_dependency`: the username of a valid cookie whose account still exists, or None."""

    def current_username(request) -> str | None:
        username = cookies.read(request.cookies.get(COOKIE_NAME))
        return username if username and account_exists(username) else None

    return current_username


def identity_reader(service) -> Callable:
    """`identity_of(request)` for the tabs: the Identity of `request.username` with its current role."""

    def identity_of(request) -> Identity:
        username = getattr(request, "username", None) if request is not None else None
        identity = service.identity_for(username) if username else None
        if identity is None:
            raise PermissionDenied("Your session has ended. Please log in again.")
        return identity

    return identity_of
