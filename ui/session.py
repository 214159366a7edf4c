"""The signed session cookie, and turning a request into the authenticated `Identity`.

The cookie holds the username, the account's session version and the login time, signed with
itsdangerous (whose timestamp is the time of the latest signing). It is checked on every request
(`current_username`, gradio's `auth_dependency`):

- the account must still exist and its session version (`sv` in accounts.json) must equal the
  cookie's: logout, a password change and a role change raise it, ending every earlier session
  on the server, whatever copies of the cookie exist;
- a session unused for `WARRANT_SESSION_IDLE_S` ends (each request re-signs a cookie that is
  getting old, so an active session goes on), and any session ends `WARRANT_SESSION_MAX_S` after
  its login.

The role is read from the account store on every call (`identity_of`), so a role change or a
deleted account takes effect at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from governance.identity import Identity, PermissionDenied

COOKIE_NAME = "warrant_session"
MAX_AGE_S = 7 * 24 * 3600  # the default absolute lifetime (WARRANT_SESSION_MAX_S)
IDLE_S = 8 * 3600  # the default idle timeout (WARRANT_SESSION_IDLE_S)


@dataclass(frozen=True)
class Session:
    username: str
    version: int  # the account's session version when the cookie was issued
    login_time: float
    signed_at: float  # the latest (re-)signing


class SessionCookies:
    """Issue and read the signed cookie that names the logged-in user and their session."""

    def __init__(self, secret: str, max_age_s: int = MAX_AGE_S, idle_s: int = IDLE_S, clock=time.time) -> None:
        self.serializer = URLSafeTimedSerializer(secret, salt="warrant-session")
        self.max_age_s, self.idle_s, self.clock = max_age_s, min(idle_s, max_age_s), clock

    def issue(self, username: str, version: int = 0, login_time: float | None = None) -> str:
        return self.serializer.dumps(
            {"u": username, "v": int(version), "t": int(login_time if login_time is not None else self.clock())}
        )

    def session(self, token: str | None) -> Session | None:
        """The session of a well-signed cookie inside both timeouts, else None (no account check)."""
        if not token:
            return None
        try:
            data, signed = self.serializer.loads(token, max_age=self.idle_s, return_timestamp=True)
        except (BadSignature, SignatureExpired):
            return None
        if not isinstance(data, dict) or not isinstance(data.get("u"), str):
            return None
        version, login_time = data.get("v", 0), data.get("t")
        if not isinstance(version, int) or not isinstance(login_time, (int, float)):
            return None
        now = self.clock()
        if now - login_time > self.max_age_s or login_time > now + 60:
            return None
        return Session(data["u"], version, float(login_time), signed.timestamp())

    def read(self, token: str | None) -> str | None:
        session = self.session(token)
        return session.username if session else None

    def renewed(self, session: Session) -> str | None:
        """A re-signed cookie when this one has used up a quarter of its idle time, else None."""
        if self.clock() - session.signed_at < self.idle_s / 4:
            return None
        return self.issue(session.username, session.version, session.login_time)


def session_reader(cookies: SessionCookies, session_version: Callable[[str], int | None]) -> Callable:
    """`current_session(request)`: the Session of a valid cookie whose account exists and whose
    session version is still the account's; None otherwise."""

    def current_session(request) -> Session | None:
        session = cookies.session(request.cookies.get(COOKIE_NAME))
        if session is None:
            return None
        return session if session_version(session.username) == session.version else None

    return current_session


def username_reader(
    cookies: SessionCookies,
    account_exists: Callable[[str], bool],
    session_version: Callable[[str], int | None] | None = None,
) -> Callable:
    """gradio's `auth_dependency`: the username of a valid, current session, or None.

    Without `session_version`, an existing account is enough (version 0), as before versions.
    """
    version_of = session_version or (lambda name: 0 if account_exists(name) else None)
    current_session = session_reader(cookies, version_of)

    def current_username(request) -> str | None:
        session = current_session(request)
        return session.username if session else None

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


def request_identity_reader(service, current_session: Callable) -> Callable:
    """`identity_of(request)` for plain FastAPI routes (the document view): the Identity of the
    request's valid, current session cookie, with the account's current role."""

    def identity_of(request) -> Identity:
        session = current_session(request)
        identity = service.identity_for(session.username) if session is not None else None
        if identity is None:
            raise PermissionDenied("Please log in first.")
        return identity

    return identity_of
