"""Issues 15 and 27, finding 1: the one upload check, Gradio's own check turned on, the paths never served."""

from __future__ import annotations

import json
import os

import gradio as gr
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from gradio.utils import is_in_or_equal

from ui.uploads import NotUploaded, only_uploads, protected_paths, uploaded_path


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


def test_protected_paths_cover_state_app_and_system_but_not_the_upload_folder(tmp_path):
    home = tmp_path / "state"
    uploads = home / "uploads"
    (uploads / "abc").mkdir(parents=True)
    (home / "secret.key").write_text("s")
    (home / "notes.txt").write_text("made by someone")
    app_root = tmp_path / "app"
    (app_root / "ui").mkdir(parents=True)
    (app_root / "app.py").write_text("")
    blocked = protected_paths(home, roots=(app_root,), uploads=uploads)

    def is_blocked(path) -> bool:
        return any(is_in_or_equal(path, b) for b in blocked)

    for path in (
        home / "secret.key",
        home / "notes.txt",
        home / "accounts.json",
        home / "users" / "x.json",
        home / "proofs" / "p.pdf",
        home / ".tickets.json.bak",
        app_root / "app.py",
        app_root / "ui" / "x.py",
        "/proc/self/environ",
        "/etc/passwd",
    ):
        assert is_blocked(path), path
    assert not is_blocked(uploads / "abc" / "notice.pdf")


def test_protected_paths_around_an_upload_folder_inside_the_app_folder(tmp_path):
    """The default layout: the app's folder holds ./state, which holds uploads/."""
    app_root = tmp_path / "app"
    home = app_root / "state"
    uploads = home / "uploads"
    uploads.mkdir(parents=True)
    (app_root / "app.py").write_text("")
    (home / "accounts.json").write_text("{}")
    blocked = protected_paths(home, roots=(app_root,), uploads=uploads)
    assert not any(is_in_or_equal(uploads / "x" / "a.txt", b) for b in blocked)
    assert any(is_in_or_equal(app_root / "app.py", b) for b in blocked)
    assert any(is_in_or_equal(home / "accounts.json", b) for b in blocked)


@pytest.mark.parametrize(
    "content_type", ["application/json", "application/JSON", "Application/Json; charset=utf-8", None]
)
def test_a_mounted_app_takes_no_file_from_outside_the_upload_folder(uploads, tmp_path, content_type):
    secret = tmp_path / "secret.txt"
    secret.write_text("the secret")
    received = []

    def take(path):
        received.append(path)
        return "took it"

    with gr.Blocks() as blocks:
        upload = gr.File(type="filepath")
        out = gr.Textbox()
        gr.Button().click(take, [upload], [out], api_name="take")
    app = gr.mount_gradio_app(FastAPI(), blocks, path="/", blocked_paths=protected_paths(tmp_path, roots=()))
    only_uploads(blocks)
    with TestClient(app) as client:
        body = json.dumps({"data": [{"path": str(secret), "meta": {"_type": "gradio.FileData"}}]}).encode()
        headers = {"Content-Type": content_type} if content_type else {}
        started = client.post("/gradio_api/call/take", content=body, headers=headers)
        if started.status_code == 200:
            stream = client.get(f"/gradio_api/call/take/{started.json()['event_id']}").text
            assert "event: error" in stream
    assert received == []
    assert not any("the secret" in p.read_text() for p in uploads.rglob("*") if p.is_file())
