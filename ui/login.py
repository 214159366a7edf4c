"""The login page, logout, and the redirect of unauthenticated page loads (FastAPI routes).

These are plain FastAPI routes registered before gradio is mounted at "/", so they answer even
though the gradio app refuses every request without a valid session cookie.

Logout is a POST (the header's "Log out" button; `GET /logout` shows a one-button form): it ends
every session of the account on the server (`AccountStore.end_sessions`), so a copied cookie
stops working too. Cross-site posts are refused by `ui.http_security` before they get here.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from governance.accounts import LoginRefused
from pipeline.language import glossary
from ui.render import esc
from ui.session import COOKIE_NAME, Session, SessionCookies

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Warrant - log in</title>
<style>
body {{font-family: system-ui, sans-serif; background:#f6f8fa; display:flex; justify-content:center; padding-top:10vh;}}
form {{background:#fff; border:1px solid #d0d7de; border-radius:10px; padding:24px 28px; width:320px;}}
label {{display:block; margin-top:12px; font-size:0.9em;}}
input {{width:100%; box-sizing:border-box; padding:8px; margin-top:4px; font-size:1em;}}
button, .sso {{margin-top:18px; width:100%; padding:9px; font-size:1em; display:block; text-align:center;}}
.error {{color:#cf222e; margin-top:10px;}} .muted {{color:#57606a; font-size:0.85em;}}
</style></head><body>
<form method="post" action="/login" id="login-form">
<h2>Warrant</h2>
<div class="muted">Answers about {subject}, cited or silent.</div>
<label>Username <input name="username" id="username" autocomplete="username" required maxlength="64"
 value="{username}"></label>
<label>Password <input name="password" id="password" type="password" autocomplete="current-password" required
 maxlength="256"></label>
<button type="submit" id="login-button">Log in</button>
{error}{sso}
</form></body></html>"""


def login_page(error: str = "", username: str = "", sso: bool = False) -> str:
    return _PAGE.format(
        subject=esc(glossary.active().subject),  # the documents' glossary: plain text, escaped here
        username=esc(username),
        error=f'<div class="error" id="login-error" role="alert">{esc(error)}</div>' if error else "",
        sso='<a class="sso" href="/login/sso">Log in with single sign-on</a>' if sso else "",
    )


_LOGOUT_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Warrant - log out</title></head>
<body style="font-family: system-ui, sans-serif; display:flex; justify-content:center; padding-top:10vh;">
<form method="post" action="/logout"><button type="submit" id="logout-button">Log out</button></form>
</body></html>"""


def set_session_cookie(
    response: Response,
    cookies: SessionCookies,
    username: str,
    cross_site: bool,
    version: int = 0,
    token: str | None = None,
) -> None:
    """On Spaces the app runs in an iframe of another site: its cookie must be SameSite=None; Secure."""
    response.set_cookie(
        COOKIE_NAME,
        token or cookies.issue(username, version),
        max_age=cookies.max_age_s,
        httponly=True,
        path="/",
        samesite="none" if cross_site else "lax",
        secure=cross_site,
    )


def client_address(request: Request) -> str:
    """The client's address (from X-Forwarded-For only as far as the configured proxies vouch for
    it: `ui.client_address`)."""
    return request.client.host if request.client else ""


def add_login_routes(
    app: FastAPI,
    service,
    cookies: SessionCookies,
    current_session: Callable,
    cross_site: bool = False,
    sso: bool = False,
) -> None:
    """/login (GET form, POST credentials), /logout (GET form, POST ends the sessions), a redirect
    from "/" to /login when needed, and the renewal of an active session's cookie."""

    def current_username(request: Request) -> str | None:
        session = current_session(request)
        return session.username if session else None

    @app.middleware("http")
    async def redirect_to_login(request: Request, call_next):
        if request.method == "GET" and request.url.path in ("/", "") and current_session(request) is None:
            return RedirectResponse("/login", status_code=303)
        # Renewal needs only the signature: a revoked session stays revoked (its version is old),
        # so the accounts file is not read again for every asset and poll.
        session: Session | None = cookies.session(request.cookies.get(COOKIE_NAME))
        response = await call_next(request)
        renewed = cookies.renewed(session) if session is not None and request.url.path != "/logout" else None
        if renewed and session is not None and COOKIE_NAME not in response.headers.get("set-cookie", ""):
            set_session_cookie(response, cookies, session.username, cross_site, token=renewed)
        return response

    @app.get("/login", response_class=HTMLResponse)
    def login_form(request: Request):
        if current_username(request):
            return RedirectResponse("/", status_code=303)
        return HTMLResponse(login_page(sso=sso))

    @app.post("/login")
    def login_submit(request: Request, username: str = Form(""), password: str = Form("")):
        # A sync route runs in the thread pool, so the failure delay does not block other users.
        try:
            identity = service.login(username, password, address=client_address(request))
        except LoginRefused as exc:
            return HTMLResponse(login_page(str(exc), username[:64], sso), status_code=401)
        response = RedirectResponse("/", status_code=303)
        set_session_cookie(
            response,
            cookies,
            identity.username,
            cross_site,
            version=service.accounts.session_version(identity.username) or 0,
        )
        return response

    @app.get("/logout")
    def logout_form(request: Request):
        if current_session(request) is None:
            return RedirectResponse("/login", status_code=303)
        return HTMLResponse(_LOGOUT_PAGE)

    @app.post("/logout")
    def logout(request: Request):
        session = current_session(request)
        if session is not None:
            service.logout(session.username)
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(
            COOKIE_NAME, path="/", samesite="none" if cross_site else "lax", secure=cross_site, httponly=True
        )
        return response
