"""Reading policy documents from disk: front matter, normalised text, Markdown or plain text."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline.ground.audience import EVERYONE, audience_label, normalise_groups
from pipeline.language.text import normalise_text, slugify

SUPPORTED_SUFFIXES = (".md", ".markdown", ".txt")
MAX_DOCUMENT_BYTES = 5 * 1024 * 1024


class DocumentError(ValueError):
    """A document that cannot be ingested; the message says which file and why."""


@dataclass(frozen=True)
class Document:
    doc_id: str
    title: str
    version: str
    effective_date: str
    owner: str
    body: str
    source: str  # path relative to the folder it was read from
    kind: str  # "markdown" | "text"
    # Who may read it: "everyone", "finance,hr", or "" (an upload that does not say: a replaced
    # document keeps its audience, a new one is everyone's). Front matter: `audience: hr, finance`.
    audience: str = ""


def _audience(fields: dict[str, str], source: object, default: str) -> str:
    raw = fields.get("audience", "").strip()
    if not raw:
        return default
    try:
        return audience_label(normalise_groups(raw))
    except ValueError as exc:
        raise DocumentError(f"{source}: audience: {exc}") from exc


def parse_front_matter(raw: str) -> tuple[dict[str, str], str]:
    """`---`-delimited `key: value` lines at the top; returns (fields, rest)."""
    if not raw.startswith("---\n"):
        return {}, raw
    end = raw.find("\n---", 4)
    if end == -1:
        return {}, raw
    fields: dict[str, str] = {}
    for line in raw[4:end].splitlines():
        if ":" in line:
            key, value = line.split(":", 1)
            fields[key.strip().lower()] = value.strip().strip("\"'")
    rest = raw[end + 4 :]
    return fields, rest.lstrip("\n")


def read_document(path: Path, root: Path) -> Document:
    """Read one `.md`/`.txt` file. Raises DocumentError for binary, empty or oversize files."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise DocumentError(f"{path}: cannot be read ({exc.strerror})") from exc
    if size > MAX_DOCUMENT_BYTES:
        raise DocumentError(f"{path}: {size} bytes is over the {MAX_DOCUMENT_BYTES} byte limit")
    data = path.read_bytes()
    if b"\x00" in data[:4096]:
        raise DocumentError(f"{path}: looks binary, not text; only .md and .txt are ingested")
    try:
        raw = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raw = data.decode("latin-1")
    raw = normalise_text(raw)
    if not raw:
        raise DocumentError(f"{path}: is empty")
    fields, body = parse_front_matter(raw + "\n")
    body = body.strip()
    if not body:
        raise DocumentError(f"{path}: has front matter but no text")
    kind = "text" if path.suffix.lower() == ".txt" else "markdown"
    title = fields.get("title") or _first_heading(body) or path.stem.replace("-", " ").replace("_", " ").title()
    relative = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
    return Document(
        doc_id=slugify(fields.get("doc_id") or Path(relative).with_suffix("").as_posix()),
        title=title,
        version=fields.get("version", "1.0"),
        effective_date=fields.get("effective_date", ""),
        owner=fields.get("owner", ""),
        body=body,
        source=relative,
        kind=kind,
        audience=_audience(fields, path, EVERYONE),
    )


def document_from_text(raw: str, source: str, kind: str = "markdown", **overrides: str) -> Document:
    """A Document from converted text (an upload); `overrides` (title, version, effective_date,
    doc_id, owner, audience) win over the text's front matter. Raises DocumentError when there is no text."""
    fields, body = parse_front_matter(normalise_text(raw) + "\n")
    fields.update({k: v.strip() for k, v in overrides.items() if v and v.strip()})
    body = body.strip()
    if not body:
        raise DocumentError(f"{source}: has no text")
    stem = Path(source).stem
    return Document(
        doc_id=slugify(fields.get("doc_id") or stem),
        title=fields.get("title") or _first_heading(body) or stem.replace("-", " ").replace("_", " ").title(),
        version=fields.get("version") or "1.0",
        effective_date=fields.get("effective_date", ""),
        owner=fields.get("owner", ""),
        body=body,
        source=source,
        kind="text" if kind == "text" else "markdown",
        audience=_audience(fields, source, ""),
    )


def _first_heading(body: str) -> str:
    for line in body.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return ""


def find_documents(folder: Path) -> list[Path]:
    """Every supported file under folder, sorted; hidden files and folders skipped."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DocumentError(f"{folder}: no such folder")
    return sorted(
        p
        for p in folder.rglob("*")
        if p.is_file()
        and p.suffix.lower() in SUPPORTED_SUFFIXES
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )
