"""The login page, logout, and the redirect of unauthenticated page loads (FastAPI routes).

These are plain FastAPI routes registered before gradio is mounted at "/", so they answer even
though the gradio app refuses every request without a valid session cookie.
"""

from __future__ import annotations

from typing import Callable

from fastapi import FastAPI, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from governance.accounts import LoginRefused
from ui.render import esc
from ui.session import COOKIE_NAME, MAX_AGE_S, SessionCookies

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
<div class="muted">Answers about the academic policies, cited or silent.</div>
<label>Username <input name="username" id="username" autocomplete="username" required maxlength="64"
 value="{username}"></label>
<label>Password <input name="password" id="password" type="password" autocomplete="current-password" required
 maxlength="256"></label>
<button type="submit" id="login-button">Log in</button>
{error}{sso}
</form></body></html>"""


def login_page(error: str = "", username: str = "", sso: bool = False) -> str:
    return _PAGE.format(
        username=esc(username),
        error=f'<div class="error" id="login-error" role="alert">{esc(error)}</div>' if error else "",
        sso='<a class="sso" href="/login/sso">Log in with single sign-on</a>' if sso else "",
    )


def set_session_cookie(response: Response, cookies: SessionCookies, username: str, cross_site: bool) -> None:
    """On Spaces the app runs in an iframe of another site: its cookie must be SameSite=None; Secure."""
    response.set_cookie(COOKIE_NAME, cookies.issue(username), max_age=MAX_AGE_S, httponly=True, path="/",
                        samesite="none" if cross_site else "lax", secure=cross_site)


def add_login_routes(app: FastAPI, service, cookies: SessionCookies, current_username: Callable,
                     cross_site: bool = False, sso: bool = False) -> None:
    """/login (GET form, POST credentials), /logout, and a redirect from "/" to /login when needed."""

    @app.middleware("http")
    async def redirect_to_login(request: Request, call_next):
        if request.method == "GET" and request.url.path in ("/", "") and current_username(request) is None:
            return RedirectResponse("/login", status_code=303)
        return await call_next(request)

    @app.get("/login", response_class=HTMLResponse)
    def login_form(request: Request):
        if current_username(request):
            return RedirectResponse("/", status_code=303)
        return HTMLResponse(login_page(sso=sso))

    @app.post("/login")
    def login_submit(username: str = Form(""), password: str = Form("")):
        # A sync route runs in the thread pool, so the failure delay does not block other users.
        try:
            identity = service.login(username, password)
        except LoginRefused as exc:
            return HTMLResponse(login_page(str(exc), username[:64], sso), status_code=401)
        response = RedirectResponse("/", status_code=303)
        set_session_cookie(response, cookies, identity.username, cross_site)
        return response

    @app.get("/logout")
    def logout():
        response = RedirectResponse("/login", status_code=303)
        response.delete_cookie(COOKIE_NAME, path="/", samesite="none" if cross_site else "lax",
                               secure=cross_site, httponly=True)
        return response
