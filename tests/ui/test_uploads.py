"""Issue 15, finding 1: the one upload check, and the middleware that applies it to every request."""

from __future__ import annotations

import os

import pytest
from fastapi import FastAPI, Request
from fastapi.testclient import TestClient

from ui.uploads import NotUploaded, foreign_paths, refuse_foreign_paths, uploaded_path


@pytest.fixture()
def uploads(tmp_path, monkeypatch):
    folder = tmp_path / "uploads"
    (folder / "abc").mkdir(parents=True)
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(folder))
    return folder


def test_only_files_inside_the_upload_folder_pass(uploads, tmp_path):
    good = uploads / "abc" / "notice.pdf"
    good.write_bytes(b"%PDF-1.4")
    assert uploaded_path(str(good)) == good
    assert uploaded_path({"path": str(good), "meta": {"_type": "gradio.FileData"}}) == good
    outside = tmp_path / "secret.key"
    outside.write_text("s")
    link = uploads / "abc" / "link.pdf"
    os.symlink(outside, link)
    for bad in (
        str(outside),
        str(link),
        str(uploads / "abc" / ".." / ".." / "secret.key"),
        "relative/notice.pdf",
        str(uploads),
        "https://evil.example/x.pdf",
        "",
        None,
        42,
    ):
        with pytest.raises(NotUploaded):
            uploaded_path(bad)


def test_foreign_paths_are_found_anywhere_in_a_payload(uploads):
    inside = str(uploads / "abc" / "a.txt")
    payload = {
        "data": ["text", [{"role": "user", "content": [{"file": {"path": "/etc/passwd"}}]}], {"path": inside}],
        "event_data": None,
    }
    assert foreign_paths(payload) == ["/etc/passwd"]


def test_the_middleware_refuses_a_request_naming_a_server_file(uploads):
    app = FastAPI()

    @app.post("/gradio_api/call/{name}")
    async def echo(name: str, request: Request):
        return await request.json()

    app.add_middleware(refuse_foreign_paths)
    client = TestClient(app)
    refused = client.post("/gradio_api/call/file_claim", json={"data": ["x", "", {"path": "/etc/passwd"}]})
    assert refused.status_code == 403
    inside = str(uploads / "abc" / "a.txt")
    accepted = client.post("/gradio_api/call/file_claim", json={"data": ["x", "", {"path": inside}]})
    assert accepted.status_code == 200 and accepted.json()["data"][2]["path"] == inside
