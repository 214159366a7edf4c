"""Proof attached to a claim: pasted text, or an uploaded file checked by its content.

Uploads are refused, with a message that says what to do, when the name is path-like, the type is
not one of .pdf .txt .md .png .jpg/.jpeg, the bytes do not match the extension, or the file is
larger than 5 MB. A PDF's text is read as documents are, by the one reader of untrusted PDFs
(`pipeline.ingest.pdf_layout.pdf_text`: a child process, within `PROOF_LIMITS`), and one too costly
to read is refused. An accepted file is stored under `<home>/proofs/` with a
generated name, so nothing the user typed ever becomes part of a path.
"""

from __future__ import annotations

import uuid
from dataclasses import asdict, dataclass
from pathlib import Path

from pipeline.ingest.pdf_layout import pdf_text
from pipeline.ingest.pdf_reader import PROOF_LIMITS, PdfRefused

MAX_PROOF_BYTES = 5 * 1024 * 1024
ALLOWED = {".pdf": "pdf", ".txt": "text", ".md": "text", ".png": "png", ".jpg": "jpeg", ".jpeg": "jpeg"}
_MAGIC = {"pdf": b"%PDF-", "png": b"\x89PNG\r\n\x1a\n", "jpeg": b"\xff\xd8\xff"}
MAX_PROOF_TEXT = PROOF_LIMITS.max_chars  # a PDF is read up to the page that reaches it


class ProofRefused(ValueError):
    """The upload was not accepted; the message is safe to show and says what to do."""


@dataclass(frozen=True)
class StoredProof:
    stored_name: str  # generated, e.g. "3f2a...c1.pdf"
    original_name: str
    kind: str  # pdf | text | png | jpeg
    size: int
    text: str  # extracted text ("" for images)

    def to_dict(self) -> dict:
        return asdict(self)


def check_name(name: str) -> str:
    """The extension of a plain file name; raises ProofRefused for path-like or unsupported names."""
    name = (name or "").strip()
    if not name:
        raise ProofRefused("The upload has no file name.")
    if any(ch in name for ch in "/\\\x00:") or name.startswith(".") or ".." in name:
        raise ProofRefused(f"File name {name[:80]!r} looks like a path; upload a plain file name such as notice.pdf.")
    ext = Path(name).suffix.lower()
    if ext not in ALLOWED:
        raise ProofRefused(
            f"{ext or 'Files without an extension'} is not accepted; upload a .pdf, .txt, .md, .png or .jpg file."
        )
    return ext


def detect_kind(data: bytes) -> str | None:
    for kind, magic in _MAGIC.items():
        if data.startswith(magic):
            return kind
    if b"\x00" in data[:8192]:
        return None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return "text"


def store_proof(data: bytes, original_name: str, proofs_dir: Path) -> StoredProof:
    """Check and store one uploaded file; raises ProofRefused with a clear message."""
    ext = check_name(original_name)
    if len(data) > MAX_PROOF_BYTES:
        raise ProofRefused(
            f"The file is {len(data) / 1048576:.1f} MB; the limit is 5 MB. Upload a smaller file "
            "or paste the relevant text instead."
        )
    if not data:
        raise ProofRefused("The file is empty.")
    kind = detect_kind(data)
    if kind != ALLOWED[ext]:
        raise ProofRefused(
            f"The content of {original_name!r} is not a {ext} file (it looks like "
            f"{kind or 'binary data'}); upload the real document."
        )
    if kind == "text":
        text = data.decode("utf-8")
    elif kind == "pdf":
        try:
            text = pdf_text(data, PROOF_LIMITS)  # in a child process, with limits; a damaged PDF gives ""
        except PdfRefused as refused:
            raise ProofRefused(str(refused)) from refused
    else:
        text = ""
    proofs_dir = Path(proofs_dir)
    proofs_dir.mkdir(parents=True, exist_ok=True)
    stored = proofs_dir / f"{uuid.uuid4().hex}{'.jpg' if ext == '.jpeg' else ext}"
    stored.write_bytes(data)
    return StoredProof(stored.name, original_name.strip(), kind, len(data), text[:MAX_PROOF_TEXT])


def read_upload(path: str | Path, original_name: str | None = None) -> tuple[bytes, str]:
    """Bytes and name of a file Gradio saved for us; refuses oversize files before reading them."""
    path = Path(path)
    if path.stat().st_size > MAX_PROOF_BYTES:
        raise ProofRefused(f"The file is {path.stat().st_size / 1048576:.1f} MB; the limit is 5 MB.")
    return path.read_bytes(), original_name or path.name
