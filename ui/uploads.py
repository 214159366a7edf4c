"""Files from clients: only what was uploaded here is ever taken, and the app's own files are never served.

Served through `gr.mount_gradio_app`, Gradio skips its own "was this uploaded?" check
(`blocks.has_launched` stays False, so `gradio.processing_utils._check_allowed` returns early):
a client could name any server path in a `FileData` payload, and Gradio copied that file into its
upload cache *before* the handler ran, through any component that takes files (the Chatbot's
history included), whatever the request's Content-Type. Guessing from headers which requests to
inspect cannot close that; the check has to run where Gradio takes the file. So:

- `only_uploads(blocks)` turns Gradio's own check on for the mounted Blocks. Every FileData
  a client sends, through every route that runs an event (queue join, `/run`, `/call`), in any
  encoding, is then refused unless it lies in the upload folder, before anything is copied;
- `protected_paths(...)` is the one list of what is never copied or served even from where Gradio
  would otherwise allow it (the state directory except the upload folder, the app's own files,
  `/proc` and friends). It is given to Gradio as `blocked_paths`, which Gradio applies to files it
  takes, files a handler returns and `/gradio_api/file=` requests alike;
- `uploaded_path` is the check a handler that reads a file calls itself before reading it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import gradio as gr
from gradio.utils import get_upload_folder

# Never served, whatever else allows them: the kernel's and the system's views of this process.
SYSTEM_PATHS = ("/proc", "/sys", "/dev", "/etc")
# What the state directory holds (SECURITY.md, "What is stored where"), blocked by name as well as
# by what is there at start, so files made later (tickets, proofs, a user's memory) are covered.
STATE_NAMES = (
    "secret.key",
    "accounts.json",
    "demo_passwords.txt",
    "users",
    "tickets.json",
    "proofs",
    "settings.json",
    "audit.jsonl",
    "audit.jsonl.head",
    "query_log.jsonl",
    "chroma",
    "term_stats.json",
    "apply_journal.json",
    "documents_journal.json",
)


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


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _around(root: Path, keep: Path) -> list[Path]:
    """`root` itself, or, when `keep` lies inside it, everything in it except the way down to `keep`."""
    if not _inside(keep, root):
        return [root]
    if root == keep:
        return []
    blocked: list[Path] = []
    try:
        children = sorted(root.iterdir())
    except OSError:
        return []
    for child in children:
        resolved = Path(os.path.realpath(child))
        blocked += _around(resolved, keep) if _inside(keep, resolved) else [child, resolved]
    return blocked


def protected_paths(home: Path, roots: Iterable[Path], uploads: Path | None = None) -> list[str]:
    """What is never copied or served: `SYSTEM_PATHS`, the state directory `home` (its `STATE_NAMES`
    too, before they exist) and each of `roots` (the app's folder, the working directory), all but
    the upload folder and the folders on the way to it."""
    keep = Path(os.path.realpath(uploads or upload_folder()))
    home = Path(os.path.realpath(home))
    blocked: list[Path] = [Path(p) for p in SYSTEM_PATHS]
    for root in (home, *roots):
        blocked += _around(Path(os.path.realpath(root)), keep)
    blocked += [home / name for name in STATE_NAMES if not _inside(keep, home / name)]
    blocked += [home / f".{name}.bak" for name in STATE_NAMES]
    return sorted({str(p) for p in blocked})


def only_uploads(blocks: gr.Blocks) -> None:
    """Make the mounted `blocks` refuse any client FileData outside the upload folder, as a
    launched app does (`mount_gradio_app` leaves `has_launched` False, which skips the check)."""
    blocks.has_launched = True


# The name the Documents tab uses; one helper, two names.
uploaded_file = uploaded_path
