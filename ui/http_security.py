"""HTTP-level protections for the served app: same-origin requests only, security headers, and
login for the API description.

- **Cross-origin refusal.** On Spaces the session cookie must be `SameSite=None` (the app runs in
  an iframe of another site), so any site could send it; and Gradio echoes any `Origin` with
  credentials allowed. Every request that carries an `Origin` (or, for a state-changing method, a
  `Referer`) from anywhere but the app itself or `WARRANT_ALLOWED_ORIGINS` is refused with 403
  before Gradio or the login routes see it. Browsers always send `Origin` on cross-origin fetches
  and form posts; clients that send neither (curl, scripts) are not browsers riding on a victim's
  cookie.
- **Security headers** on every response: a Content-Security-Policy (no remote images, scripts,
  frames or form targets; `frame-ancestors` the app itself, plus huggingface.co and this Space's
  own host on Spaces, or `WARRANT_FRAME_ANCESTORS`), `X-Frame-Options` off Spaces, `X-Content-Type-Options: nosniff`,
  `Referrer-Policy: same-origin`.
- **The API description** (`/openapi.json`, `/docs`, `/redoc`, Gradio's `/gradio_api/info`
  is already behind the login) answers 401 without a session.
- **Request bodies** other than file uploads (which Gradio limits to `WARRANT_MAX_UPLOAD_MB`)
  are refused with 413 past `MAX_BODY_BYTES`, whatever their Content-Type (`limit_bodies`).
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

_SAFE_METHODS = {"GET", "HEAD"}
MAX_BODY_BYTES = 4 * 1024 * 1024  # an event's data, a login form: far below this
_DOC_SUFFIXES = ("/openapi.json", "/docs", "/redoc", "/docs/oauth2-redirect")
SPACES_FRAME_ANCESTORS = "'self' https://huggingface.co"


def frame_ancestors(config) -> str:
    """Who may frame the app: `WARRANT_FRAME_ANCESTORS`, else the app itself, plus on Spaces
    huggingface.co (the Space's page) and this Space's own host - not `*.hf.space`, which would let
    any other Space frame it."""
    if config.frame_ancestors:
        return config.frame_ancestors
    if not config.on_spaces:
        return "'self'"
    own = f" https://{config.space_host}" if config.space_host else ""
    return SPACES_FRAME_ANCESTORS + own


def _origin_of(url: str) -> str:
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        return ""
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}"


def is_same_origin(source: str, request: Request, allowed: tuple[str, ...]) -> bool:
    """True when `source` (an Origin or Referer) is this app's own origin or an allowed one."""
    origin = _origin_of(source)
    if not origin:
        return False
    if origin in {_origin_of(a) for a in allowed}:
        return True
    # The host the browser addressed must be the one the page came from; the scheme may differ
    # behind a TLS-terminating proxy, so only the host and port are compared. A proxy that
    # rewrites Host passes the original in X-Forwarded-Host, which a page on another site cannot
    # set on a victim's request (a custom header needs a preflight, and that is refused).
    netloc = urlsplit(origin).netloc
    hosts = {(request.headers.get("host") or "").lower()}
    hosts |= {h.strip().lower() for h in (request.headers.get("x-forwarded-host") or "").split(",") if h.strip()}
    return netloc in hosts - {""}


def cross_origin_refusal(request: Request, allowed: tuple[str, ...]) -> str:
    """Why this request must be refused as cross-origin, or "" when it may go on."""
    origin = request.headers.get("origin")
    if origin is not None:
        return "" if is_same_origin(origin, request, allowed) else f"origin {origin[:100]!r} is not this app"
    if request.method not in _SAFE_METHODS:
        referer = request.headers.get("referer")
        if referer and not is_same_origin(referer, request, allowed):
            return "the request came from another site"
    return ""


def content_security_policy(frame_ancestors: str) -> str:
    return "; ".join(
        [
            "default-src 'self'",
            # Gradio's page bootstraps with inline scripts, and gr.HTML compiles its template with
            # Handlebars (new Function): without these two, the header and the sources panel stay empty.
            "script-src 'self' 'unsafe-inline' 'unsafe-eval'",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",  # no remote images: nothing a user writes makes a browser fetch
            "font-src 'self' data:",
            "connect-src 'self'",
            "media-src 'self' blob:",
            "worker-src 'self' blob:",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            f"frame-ancestors {frame_ancestors}",
        ]
    )


def add_http_protections(app: FastAPI, config, current_username: Callable) -> None:
    """Install the origin check, the headers and the login for API docs on `app` (outermost)."""
    allowed = tuple(config.allowed_origins)
    csp = content_security_policy(frame_ancestors(config))
    headers = {
        "Content-Security-Policy": csp,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "Cross-Origin-Opener-Policy": "same-origin-allow-popups",
    }
    if not config.on_spaces and not config.frame_ancestors:
        headers["X-Frame-Options"] = "SAMEORIGIN"

    @app.middleware("http")
    async def protect(request: Request, call_next):
        refusal = cross_origin_refusal(request, allowed)
        if refusal:
            response = JSONResponse({"error": f"Refused: {refusal}."}, status_code=403)
        elif request.url.path.endswith(_DOC_SUFFIXES) and current_username(request) is None:
            response = JSONResponse({"error": "Not authenticated."}, status_code=401)
        else:
            response = await call_next(request)
        for name, value in headers.items():
            response.headers.setdefault(name, value)
        return response


class limit_bodies:
    """ASGI middleware: a request body over `MAX_BODY_BYTES` gets 413, except on Gradio's upload
    route (limited by Gradio itself to the upload size). Counts what arrives, so neither a missing
    Content-Length nor a chunked body gets past it: past the limit the app is told the client left."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("path", "").endswith("/upload"):
            return await self.app(scope, receive, send)
        declared = dict(scope.get("headers") or []).get(b"content-length", b"0")
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            return await _too_large(send)
        received, exceeded, started = 0, False, False

        async def counted():
            nonlocal received, exceeded
            message = await receive()
            received += len(message.get("body", b""))
            if received > MAX_BODY_BYTES:
                exceeded = True
                return {"type": "http.disconnect"}
            return message

        async def answer(message):
            nonlocal started
            if exceeded:
                return  # whatever the app says to a body it never got in full
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, answer)
        except Exception:
            if not exceeded:
                raise
        if exceeded and not started:
            await _too_large(send)


async def _too_large(send) -> None:
    body = b'{"error": "The request is too large."}'
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
