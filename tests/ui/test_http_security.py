"""The HTTP-level protections of `ui.http_security` on a small FastAPI app (the real app: tests/test_security_*)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from ui.http_security import MAX_BODY_BYTES, limit_bodies


def _echo_app() -> TestClient:
    app = FastAPI()

    @app.post("/gradio_api/call/{name}")
    async def echo(name: str, request: Request):
        return {"bytes": len(await request.body())}

    app.add_middleware(limit_bodies)
    return TestClient(app)


def test_bodies_over_the_limit_are_refused_however_they_are_sent():
    client = _echo_app()
    assert client.post("/gradio_api/call/x", content=b"{}").json() == {"bytes": 2}
    assert client.post("/gradio_api/call/x", content=b"a" * (MAX_BODY_BYTES + 1)).status_code == 413

    def chunked():  # no Content-Length: counted as it arrives
        for _ in range(MAX_BODY_BYTES // (1 << 20) + 1):
            yield b"a" * (1 << 20)

    assert client.post("/gradio_api/call/x", content=chunked(), headers={"Content-Type": "text/plain"}).status_code == 413
