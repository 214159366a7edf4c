"""The one check every file a handler receives must pass: it lies in Gradio's upload folder.

Served through `gr.mount_gradio_app`, Gradio skips its own "was this uploaded?" check
(`blocks.has_launched` stays False), so a client can name any server path in a `FileData`
payload. Two layers close that:

- `refuse_foreign_paths` (an ASGI middleware, installed by `ui.app.build_app`) reads every JSON
  request to the Gradio API and refuses, with 403, any file reference (`{"path": ...}`) outside
  the upload folder, whatever component or handler it is meant for, present or future;
- `uploaded_path` is the check a handler that takes a file calls itself before reading it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from gradio.utils import get_upload_folder

MAX_JSON_BODY_BYTES = 4 * 1024 * 1024


class NotUploaded(ValueError):
    """The path is not a file uploaded to this app; the message is safe to show."""


def upload_folder() -> Path:
    return Path(os.path.realpath(get_upload_folder()))


def is_uploaded(value: str | os.PathLike) -> bool:
    """True when `value` is an absolute path inside the upload folder with no symlink on the way."""
    raw = os.fspath(value)
    if not isinstance(raw, str) or not raw or "\x00" in raw or not os.path.isabs(raw):
        return False
    absolute = os.path.abspath(raw)
    resolved = os.path.realpath(absolute)
    if resolved != absolute:  # a symlink (or "..") somewhere on the way
        return False
    folder = str(upload_folder())
    return resolved.startswith(folder + os.sep)


def uploaded_path(value: Any) -> Path:
    """The path of a file Gradio saved for this request, or NotUploaded.

    Accepts what a `gr.File(type="filepath")` handler receives (a str or PathLike) or a FileData
    dict. Every handler that takes a file calls this before touching the file.
    """
    if isinstance(value, dict):
        value = value.get("path", "")
    value = getattr(value, "path", value)
    if not isinstance(value, (str, os.PathLike)) or not is_uploaded(value):
        raise NotUploaded("That file was not uploaded here; please upload it again.")
    return Path(value)


def foreign_paths(data: Any) -> list[str]:
    """Every `{"path": ...}` in a decoded JSON payload that is not an uploaded file."""
    found: list[str] = []
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            path = item.get("path")
            if isinstance(path, str) and not is_uploaded(path):
                found.append(path)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def _gradio_api(path: str) -> bool:
    return "/gradio_api/" in path or path.startswith(("/run/", "/api/", "/queue/", "/call/"))


class refuse_foreign_paths:
    """ASGI middleware: a JSON POST to the Gradio API naming a file outside the upload folder gets 403."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") != "POST" or not _gradio_api(scope.get("path", "")):
            return await self.app(scope, receive, send)
        headers = dict(scope.get("headers") or [])
        if b"json" not in headers.get(b"content-type", b""):
            return await self.app(scope, receive, send)
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body = message.get("body", b"")
            size += len(body)
            if size > MAX_JSON_BODY_BYTES:
                return await _refuse(send, 413, "The request is too large.")
            chunks.append(body)
            if not message.get("more_body"):
                break
        raw = b"".join(chunks)
        try:
            payload = json.loads(raw) if raw.strip() else None
        except ValueError:
            payload = None  # not JSON after all: Gradio answers it as it would
        if payload is not None and foreign_paths(payload):
            return await _refuse(send, 403, "A file in this request was not uploaded here.")
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": raw, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)


async def _refuse(send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


# The name the Documents tab uses; one helper, two names.
uploaded_file = uploaded_path
