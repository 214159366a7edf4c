"""Optional single sign-on (OpenID Connect) through authlib's Starlette client.

Enabled only when `WARRANT_OIDC_METADATA_URL`, `WARRANT_OIDC_CLIENT_ID` and
`WARRANT_OIDC_CLIENT_SECRET` are set. Routes: `/login/sso` sends the browser to the provider,
`/auth/callback` receives it back; the provider's `sub` (with the issuer) becomes the stable
account id, and a user seen for the first time gets the `user` role. The provider's groups claim
(`WARRANT_OIDC_GROUPS_CLAIM`, default `groups`) becomes the account's groups at every sign-in,
which decide the restricted documents it may read; values that are not valid group names are
left out. After that the app's own signed session cookie is used, exactly as for a local login.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Callable

from pipeline.ground.audience import MAX_GROUPS, normalise_groups

_LOG = logging.getLogger("warrant.sso")

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def sso_username(claims: dict) -> str:
    """A valid local username from the provider's claims, suffixed by a hash of `sub` so two
    providers' "alice" never share an account."""
    base = claims.get("preferred_username") or (claims.get("email") or "").split("@")[0] or "user"
    base = _UNSAFE.sub("-", str(base)).strip(".-")[:20] or "user"
    suffix = hashlib.sha256(f"{claims.get('iss', '')}|{claims.get('sub', '')}".encode()).hexdigest()[:6]
    return f"{base}-{suffix}"


def sso_groups(claims: dict, claim: str = "groups") -> list[str] | None:
    """The account's groups from the provider's `claim` (a list, or one comma-separated string);
    None when the claim is absent (the account keeps its groups). A value that is not a valid group
    name (pipeline.ground.audience) is dropped and logged, never an error that stops the sign-in."""
    if claim not in claims:
        return None
    raw = claims.get(claim)
    values = [raw] if isinstance(raw, str) else list(raw) if isinstance(raw, (list, tuple)) else []
    groups: list[str] = []
    for value in values[: 10 * MAX_GROUPS]:
        for name in str(value).split(","):
            try:
                groups.extend(normalise_groups(name))
            except ValueError:
                _LOG.warning("SSO claim %s: %r is not a group name; left out", claim, str(name)[:60])
    return sorted(set(groups))[:MAX_GROUPS]


def add_oidc_routes(app, config, secret: str, sign_in: Callable) -> None:
    """Register the SSO routes on the FastAPI `app`.

    `sign_in(subject_id, username, display_name, groups)` must return the response that sets the
    app's session cookie (it is `ui.app`'s, which owns cookies), or raise PermissionError.
    """
    from authlib.integrations.starlette_client import OAuth, OAuthError
    from fastapi import Request
    from fastapi.responses import HTMLResponse
    from starlette.middleware.sessions import SessionMiddleware

    # authlib keeps the OAuth `state` and nonce in this (separate, signed) session cookie.
    app.add_middleware(
        SessionMiddleware,
        secret_key=secret,
        session_cookie="warrant_oidc",
        same_site="none" if config.on_spaces else "lax",
        https_only=config.on_spaces,
    )
    oauth = OAuth()
    oauth.register(
        "sso",
        server_metadata_url=config.oidc_metadata_url,
        client_id=config.oidc_client_id,
        client_secret=config.oidc_client_secret,
        client_kwargs={"scope": "openid email profile"},
    )

    @app.get("/login/sso")
    async def sso_start(request: Request):
        return await oauth.sso.authorize_redirect(request, str(request.url_for("sso_callback")))

    @app.get("/auth/callback", name="sso_callback")
    async def sso_callback(request: Request):
        try:
            token = await oauth.sso.authorize_access_token(request)
        except OAuthError:
            return HTMLResponse("Single sign-on failed. <a href='/login'>Back to the login page</a>.", 401)
        claims = dict(token.get("userinfo") or {})
        if not claims.get("sub"):
            return HTMLResponse("The provider sent no user id. <a href='/login'>Back</a>.", 401)
        subject_id = f"oidc:{claims.get('iss', config.oidc_metadata_url)}:{claims['sub']}"
        display = str(claims.get("name") or claims.get("email") or "")[:80]
        try:
            return sign_in(subject_id, sso_username(claims), display, sso_groups(claims, config.oidc_groups_claim))
        except PermissionError:
            return HTMLResponse("This account cannot sign in here; ask an admin. <a href='/login'>Back</a>.", 403)
