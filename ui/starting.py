"""The page served while the app starts: "Warrant is starting: building the index (n of m files)".

Loading the model and, on the first start, building the index take from seconds to minutes; in
that time `python app.py` serves this page (HTTP 503 with Retry-After, refreshing itself every two
seconds) on the app's own address instead of refusing connections. `StartingServer` runs it with
uvicorn in a thread; `app.py` stops it just before the real app is served on the same port.
The page says only what the start is doing: no account, no document, nothing a visitor sent.
"""

from __future__ import annotations

import html
import re
import threading
import time

import uvicorn

_FILES = re.compile(r"\((\d+) of (\d+) files\)")
_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="2"><title>Warrant is starting</title>
<style>body {{font-family: system-ui, sans-serif; display:flex; justify-content:center; padding-top:12vh;
background:#f6f8fa; color:#1f2328;}} main {{background:#fff; border:1px solid #d0d7de; border-radius:10px;
padding:24px 28px; max-width:30rem;}} .muted {{color:#57606a; font-size:0.9em;}}</style></head>
<body><main><h2>Warrant is starting</h2><p id="warrant-starting">{status}</p>
<p class="muted">This page refreshes by itself; the login appears as soon as Warrant is ready
(started {elapsed} s ago).</p></main></body></html>"""
_HEADERS = [
    (b"content-type", b"text/html; charset=utf-8"),
    (b"retry-after", b"2"),
    (b"cache-control", b"no-store"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"content-security-policy", b"default-src 'none'; style-src 'unsafe-inline'"),
]


class StartingPage:
    """An ASGI app answering every request with the start's progress; `update` feeds it."""

    def __init__(self) -> None:
        self.status = "Loading the language model and the index…"
        self.files = ""
        self.started = time.monotonic()

    def update(self, message: str) -> None:
        """Take an ingest progress message ("reading x.md (3 of 10 files)", "embedding 80 chunks")."""
        counted = _FILES.search(message)
        if counted:
            self.files = f"{counted.group(1)} of {counted.group(2)} files"
        step = _FILES.sub("", message).strip()
        self.status = f"Building the index ({self.files or 'reading the files'}): {step}…"

    def page(self) -> bytes:
        elapsed = int(time.monotonic() - self.started)
        return _PAGE.format(status=html.escape(self.status), elapsed=elapsed).encode("utf-8")

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "lifespan":
            while True:
                event = await receive()
                if event["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif event["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        body = self.page()
        headers = [*_HEADERS, (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": 503, "headers": headers})
        await send({"type": "http.response.body", "body": body if scope.get("method") != "HEAD" else b""})


class StartingServer:
    """`StartingPage` served by uvicorn in a background thread until `stop()`."""

    def __init__(self, host: str, port: int, **uvicorn_options) -> None:
        self.page = StartingPage()
        config = uvicorn.Config(self.page, host=host, port=port, log_level="warning", **uvicorn_options)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name="starting-page", daemon=True)

    def start(self) -> StartingServer:
        self._thread.start()
        return self

    def progress(self, fraction: float, message: str) -> None:
        self.page.update(message)

    def stop(self) -> None:
        """Close the port (waiting for the server to finish) so the real app can take it."""
        self._server.should_exit = True
        self._thread.join(timeout=30)
