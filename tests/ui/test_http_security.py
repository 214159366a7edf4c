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

    assert (
        client.post("/gradio_api/call/x", content=chunked(), headers={"Content-Type": "text/plain"}).status_code == 413
    )


def _client_seen(hops: int, headers: dict[str, str]) -> tuple[str, str]:
    from ui.client_address import forwarded_client

    app = FastAPI()

    @app.get("/who")
    async def who(request: Request):
        return {"host": request.client.host if request.client else "", "scheme": request.url.scheme}

    app.add_middleware(forwarded_client, hops=hops)
    seen = TestClient(app).get("/who", headers=headers).json()
    return seen["host"], seen["scheme"]


def test_the_client_is_the_entry_the_trusted_proxies_appended():
    spoofed = {"X-Forwarded-For": "10.66.0.1, 203.0.113.7", "X-Forwarded-Proto": "http, https"}
    assert _client_seen(1, spoofed) == ("203.0.113.7", "https")  # what the one proxy saw, not what the client wrote
    assert _client_seen(2, spoofed) == ("10.66.0.1", "http")
    assert _client_seen(0, spoofed) == ("testclient", "http")  # no proxy trusted: the connection's peer
    assert _client_seen(3, spoofed) == ("testclient", "http")  # fewer entries than proxies: not through them
    assert _client_seen(1, {"X-Forwarded-For": "[2001:db8::1]:4711"})[0] == "2001:db8::1"


def test_trusted_proxy_hops_default_to_one_on_spaces_and_are_checked(monkeypatch):
    import pytest

    from pipeline.ground.config import load_config

    monkeypatch.delenv("WARRANT_TRUSTED_PROXY_HOPS", raising=False)
    monkeypatch.delenv("SPACE_ID", raising=False)
    assert load_config().trusted_proxy_hops == 0
    monkeypatch.setenv("SPACE_ID", "someone/warrant")
    monkeypatch.setenv("SPACE_HOST", "someone-warrant.hf.space")
    config = load_config()
    assert (config.trusted_proxy_hops, config.space_host) == (1, "someone-warrant.hf.space")
    monkeypatch.setenv("WARRANT_TRUSTED_PROXY_HOPS", "-1")
    with pytest.raises(ValueError, match="WARRANT_TRUSTED_PROXY_HOPS"):
        load_config()


def test_frame_ancestors_on_spaces_name_this_space_not_every_space():
    from types import SimpleNamespace

    from ui.http_security import frame_ancestors

    space = SimpleNamespace(frame_ancestors="", on_spaces=True, space_host="someone-warrant.hf.space")
    assert frame_ancestors(space) == "'self' https://huggingface.co https://someone-warrant.hf.space"
    assert "*" not in frame_ancestors(space)
    assert frame_ancestors(SimpleNamespace(frame_ancestors="", on_spaces=False, space_host="")) == "'self'"
