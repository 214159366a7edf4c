"""The document library: add, replace, retire and restore whole documents, audited and crash-safe.

An upload is converted and chunked first (`prepare`, no writes), so the admin sees the chunk
audit before confirming. Every change then goes the way an approved ticket does: the whole change
(the chunks it touches, with their embeddings and metadata, and the new chunks, embedded now) is
written to `<home>/documents_journal.json` before the index is touched, applied through the
index's own API, and the journal cleared; a process killed halfway is rolled back at the next
start. Nothing is deleted: a replaced or retired document's chunks are deprecated and kept, and a
retired document can be restored.

Each document has an audience (everyone, or named groups; pipeline.ground.audience): given with
the upload or in its front matter, kept by a new version unless the new version names another,
and changed with `set_audience`, which rewrites the audience of every chunk of the document the
same crash-safe way. `readable` is a reader's view of one document: filtered by the reader's
audience in the Chroma query, and "no such document" both when there is none and when the reader
may not read it.
"""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

from governance.audit import AuditLog
from governance.conflicts import Conflict, conflicts_with
from governance.evolution import CorpusEvolution, bump_version
from governance.identity import Identity, require
from pipeline.ground.audience import Audience, audience_label, audience_metadata, groups_of, normalise_groups
from pipeline.ground.config import Config
from pipeline.ground.records import Chunk
from pipeline.ground.storage import lock_for
from pipeline.ingest.chunking import ChunkIssue, audit_chunks, chunk_document
from pipeline.ingest.convert import ConversionRefused, convert
from pipeline.ingest.documents import DocumentError, document_from_text
from pipeline.ingest.index import ACTIVE, DEPRECATED, chunk_to_node
from pipeline.ingest.sentence_vectors import Row

Progress = Callable[[float, str], None]


class DocumentRefused(DocumentError):
    """A library change that was not made; the message is safe to show and says why."""


class SameTitle(DocumentRefused):
    """An upload with the title (or id) of an active document: to be offered as its new version."""

    def __init__(self, message: str, entry: LibraryEntry) -> None:
        super().__init__(message)
        self.entry = entry


@dataclass(frozen=True)
class PreparedDocument:
    """An upload converted and chunked, not yet indexed."""

    name: str
    kind: str
    doc_id: str
    title: str
    version: str
    effective_date: str
    chunks: list[Chunk]
    issues: list[ChunkIssue]
    file_sha256: str
    text_sha256: str
    notes: tuple[str, ...] = ()  # how the file was read (OCR and its confidence, pages skipped)
    ocr_confidence: float = -1.0  # OCR's mean word confidence (0-100); -1 when OCR was not used
    audience: str = ""  # "everyone", "finance,hr", or "" (new: everyone; replacing: the current one)

    def audit_lines(self) -> list[str]:
        lines = [
            f'{self.name} → {self.doc_id} "{self.title}" v{self.version}'
            f"{', effective ' + self.effective_date if self.effective_date else ''}: {len(self.chunks)} chunks"
            + (f", readable by {self.audience}" if self.audience else "")
        ]
        lines += [f"  ! {note}" for note in self.notes]
        lines += [f"  - {i.chunk_id.split('::')[1]}: {i.problem}" for i in self.issues]
        return lines


@dataclass(frozen=True)
class LibraryEntry:
    doc_id: str
    title: str
    version: str
    effective_date: str
    chunks: int  # active
    total_chunks: int
    status: str  # active | retired | replaced
    uploaded_by: str
    uploaded_at: str
    source: str
    audience: str = "everyone"


@dataclass
class ChangeResult:
    doc_id: str
    message: str
    created: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _record(node: TextNode) -> dict:
    return {
        "id": node.node_id,
        "text": node.text,
        "metadata": dict(node.metadata),
        "embedding": list(node.embedding or []),
    }


def _node(record: dict, **changes: str) -> TextNode:
    metadata = {**record["metadata"], **changes}
    node = TextNode(id_=record["id"], text=record["text"], metadata=metadata, embedding=record["embedding"] or None)
    node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=metadata.get("doc_id", ""))
    node.excluded_embed_metadata_keys = list(metadata)
    node.excluded_llm_metadata_keys = list(metadata)
    return node


class DocumentLibrary:
    """Whole-document changes to one engine's index; every public change takes the acting identity
    and requires the `ingest` permission (admins)."""

    def __init__(self, engine, audit: AuditLog, config: Config) -> None:
        self.engine = engine
        self.index = engine.index
        self.audit = audit
        self.config = config
        self.journal = CorpusEvolution(engine.index, config.home / "documents_journal.json")
        # The lock ticket decisions hold, across processes: the app and the command line never
        # change the corpus at the same time.
        self._lock = lock_for(config.home / "governance")
        self.recover()

    # -- reading -------------------------------------------------------------------------------------
    def entries(self, identity: Identity) -> list[LibraryEntry]:
        require(identity, "ingest")
        metas = self.index.collection.get(include=["metadatas"])["metadatas"]
        by_doc: dict[str, list[dict]] = defaultdict(list)
        for meta in metas:
            by_doc[meta.get("doc_id", "")].append(meta)
        return [self._entry(doc_id, group) for doc_id, group in sorted(by_doc.items())]

    @staticmethod
    def _entry(doc_id: str, metas: list[dict]) -> LibraryEntry:
        active = [m for m in metas if m.get("status") == ACTIVE]
        newest = max(active or metas, key=lambda m: (str(m.get("uploaded_at", "")), str(m.get("version", ""))))
        if active:
            status = "active"
        elif any(m.get("retired_at") for m in metas):
            status = "retired"
        else:
            status = "replaced"
        return LibraryEntry(
            doc_id,
            str(newest.get("title", "")),
            str(newest.get("version", "")),
            str(newest.get("effective_date", "")),
            len(active),
            len(metas),
            status,
            str(newest.get("uploaded_by", "") or "(ingest)"),
            str(newest.get("uploaded_at", "")),
            str(newest.get("source", "")),
            audience_label(groups_of(newest)),
        )

    def chunks(self, identity: Identity, doc_id: str) -> list[dict]:
        """Every chunk of a document, active first, in document order."""
        require(identity, "ingest")
        nodes = self.index.get_nodes(where={"doc_id": str(doc_id or "").strip()})
        rows = [
            {
                "chunk_id": n.node_id,
                "section": n.metadata.get("section", ""),
                "version": n.metadata.get("version", ""),
                "status": n.metadata.get("status", ""),
                "origin": n.metadata.get("origin", ""),
                "page": n.metadata.get("page", ""),
                "words": len(n.text.split()),
                "text": n.text,
            }
            for n in nodes
        ]
        return sorted(rows, key=lambda r: (r["status"] != ACTIVE, r["chunk_id"]))

    # -- preparing (no writes) -----------------------------------------------------------------------
    def readable(self, audience: Audience, doc_id: str) -> list[dict]:
        """The active chunks of a document that `audience` may read, in document order: section,
        title, version and text. DocumentRefused alike for a missing document and a restricted one."""
        doc_id = str(doc_id or "").strip()
        clauses: list[dict] = [{"doc_id": doc_id}, {"status": ACTIVE}]
        readers = audience.where()
        nodes = self.index.get_nodes(where={"$and": clauses + ([readers] if readers else [])})
        if not doc_id or not nodes:
            raise DocumentRefused(f"No document {doc_id[:80]!r}.")
        nodes.sort(key=lambda n: (int(n.metadata.get("position", 0) or 0), n.node_id))
        return [
            {
                "chunk_id": n.node_id,
                "title": n.metadata.get("title", ""),
                "section": n.metadata.get("section", ""),
                "version": n.metadata.get("version", ""),
                "text": n.text,
            }
            for n in nodes
        ]

    def prepare(
        self,
        data: bytes,
        name: str,
        title: str = "",
        version: str = "",
        effective_date: str = "",
        doc_id: str = "",
        audience: str = "",
    ) -> PreparedDocument:
        """Convert and chunk one file; raises DocumentError (ConversionRefused) with a plain reason.
        `audience`: "everyone", or groups ("hr, finance"); "" keeps what the file's front matter says."""
        converted = convert(data, name)
        document = document_from_text(
            converted.markdown,
            converted.name,
            converted.kind,
            doc_id=doc_id,
            title=title or converted.title,
            version=version or converted.version,
            effective_date=effective_date or converted.effective_date,
            audience=audience,
        )
        chunks = chunk_document(document, self.config.chunk_min_words, self.config.chunk_max_words)
        if not chunks:
            raise ConversionRefused(f"{name} produced no chunks to index.")
        text_sha = hashlib.sha256(document.body.encode("utf-8")).hexdigest()
        return PreparedDocument(
            name,
            converted.kind,
            document.doc_id,
            document.title,
            document.version,
            document.effective_date,
            chunks,
            audit_chunks(chunks, self.config.chunk_min_words, self.config.chunk_max_words),
            hashlib.sha256(data).hexdigest(),
            text_sha,
            converted.notes,
            converted.ocr_confidence,
            document.audience,
        )

    def preview(self, identity: Identity, data: bytes, name: str, **fields: str) -> PreparedDocument:
        """`prepare` for an admin (the Documents tab's check step): nothing is written."""
        require(identity, "ingest")
        return self.prepare(data, name, **fields)

    def check_new(self, prepared: PreparedDocument) -> None:
        """Refuse a document whose content is already in the library, whose id is taken, or whose
        title is an active document's (SameTitle: the caller offers to replace that one)."""
        duplicate = self._same_content(prepared)
        if duplicate:
            raise DocumentRefused(
                f"{prepared.name} is a duplicate of {duplicate}, already in the library; nothing was added."
            )
        existing = self.index.collection.get(where={"doc_id": prepared.doc_id}, include=["metadatas"])
        if existing["ids"]:
            entry = self._entry(prepared.doc_id, existing["metadatas"])
            message = (
                f"{prepared.name}: a document with id {prepared.doc_id} is already in the library "
                f'("{entry.title}" v{entry.version}, {entry.status}); replace that document instead, '
                "or give this one another title."
            )
            if entry.status == "active":
                raise SameTitle(message, entry)
            raise DocumentRefused(message)
        same = self.active_with_title(prepared.title)
        if same is not None:
            raise SameTitle(
                f'{prepared.name} has the title "{same.title}" of the active document {same.doc_id} '
                f"(v{same.version}); replace {same.doc_id} with it (a new version) rather than adding a second "
                "document with the same title, or give this one another title.",
                same,
            )

    def active_with_title(self, title: str) -> LibraryEntry | None:
        """The active document with this title (case and spacing aside), or None."""
        wanted = " ".join(str(title or "").lower().split())
        if not wanted:
            return None
        metas = self.index.collection.get(where={"status": ACTIVE}, include=["metadatas"])["metadatas"] or []
        doc_ids = sorted(
            {m.get("doc_id", "") for m in metas if " ".join(str(m.get("title", "")).lower().split()) == wanted}
        )
        for doc_id in doc_ids:
            group = [m for m in metas if m.get("doc_id") == doc_id]
            return self._entry(doc_id, group)
        return None

    def conflicts(self, prepared: list[PreparedDocument], replacing: str = "") -> list[Conflict]:
        """What the uploads would contradict in the active library (the document they replace left
        out): pairs of sentences stating one thing with different facts (governance.conflicts)."""
        nodes = [chunk_to_node(c) for p in prepared for c in p.chunks]
        return conflicts_with(self.index, nodes, exclude_doc=replacing)

    def _same_content(self, prepared: PreparedDocument) -> str:
        for key, value in (("file_sha256", prepared.file_sha256), ("text_sha256", prepared.text_sha256)):
            hits = self.index.collection.get(where={"$and": [{key: value}, {"status": ACTIVE}]}, include=["metadatas"])
            if hits["ids"]:
                meta = hits["metadatas"][0]
                return f'{meta.get("doc_id")} ("{meta.get("title", "")}")'
        # Documents ingested from a folder carry no file digest: compare their chunks' content.
        hashes = [c.content_hash for c in prepared.chunks]
        hits = self.index.collection.get(
            where={"$and": [{"content_hash": {"$in": hashes}}, {"status": ACTIVE}]}, include=["metadatas"]
        )
        owners: dict[str, set[str]] = defaultdict(set)
        for meta in hits["metadatas"]:
            owners[meta.get("doc_id", "")].add(meta.get("content_hash", ""))
        for doc_id, found in owners.items():
            if found >= set(hashes):  # every chunk of the upload is already there
                title = next(m.get("title", "") for m in hits["metadatas"] if m.get("doc_id") == doc_id)
                return f'{doc_id} ("{title}")'
        return ""

    # -- changing ------------------------------------------------------------------------------------
    def add(
        self, identity: Identity, prepared: list[PreparedDocument], progress: Progress | None = None
    ) -> list[ChangeResult]:
        """Index new documents. All are checked first: one refusal and none is added."""
        require(identity, "ingest")
        with self._lock:
            ids = [p.doc_id for p in prepared]
            repeated = {d for d in ids if ids.count(d) > 1}
            if repeated:
                raise DocumentRefused(
                    f"Two of the files would both become {', '.join(sorted(repeated))}; give them different titles."
                )
            texts = [p.text_sha256 for p in prepared]
            if len(set(texts)) != len(texts):
                raise DocumentRefused("Two of the files have the same text; upload it once.")
            for p in prepared:
                self.check_new(p)
            nodes = [[self._upload_node(c, p, identity) for c in p.chunks] for p in prepared]
            if progress:
                progress(0.0, f"embedding {sum(len(n) for n in nodes)} chunks")
            # All the files' chunks and sentences in one pass (sorted by length, fuller batches)
            # before any is written: a crash while embedding changes nothing.
            sentence_rows = self.index.embed_nodes([n for new in nodes for n in new], sentences=True)
            results = []
            try:
                for number, (p, new) in enumerate(zip(prepared, nodes, strict=True)):
                    if progress:
                        progress(number / max(1, len(prepared)), f"indexing {p.name}")
                    self._change(
                        identity,
                        "document_added",
                        p.doc_id,
                        {},
                        [],
                        new,
                        sentence_rows=sentence_rows,
                        refresh=False,
                        title=p.title,
                        version=p.version,
                        file=p.name,
                        file_sha256=p.file_sha256,
                        chunks=len(new),
                    )
                    read_by_ocr = f" {p.notes[0]}" if p.ocr_confidence >= 0 else ""
                    results.append(
                        ChangeResult(
                            p.doc_id,
                            f'Added {p.doc_id} ("{p.title}" v{p.version}): {len(new)} chunks.{read_by_ocr}',
                            [n.node_id for n in new],
                        )
                    )
            finally:
                if results:  # the term statistics counted once for all the files added
                    self.engine.refresh()
            return results

    def replace(
        self, identity: Identity, doc_id: str, prepared: PreparedDocument, progress: Progress | None = None
    ) -> ChangeResult:
        """A new version of an active document: unchanged chunks keep their vectors (new version
        number), changed ones are embedded, the old version's other chunks are deprecated."""
        require(identity, "ingest")
        doc_id = str(doc_id or "").strip()
        with self._lock:
            old = self.index.get_nodes(where={"$and": [{"doc_id": doc_id}, {"status": ACTIVE}]}, with_embeddings=True)
            if not old:
                raise DocumentRefused(
                    f"No active document {doc_id!r} to replace; see the library for the ids "
                    "(a retired document must be restored first)."
                )
            if prepared.text_sha256 == old[0].metadata.get("text_sha256"):
                raise DocumentRefused(
                    f"{prepared.name} has the same text as the current version of {doc_id}; nothing changed."
                )
            old_version = str(old[0].metadata.get("version", ""))
            version = (
                prepared.version if prepared.version not in ("", "1.0", old_version) else bump_version(old_version)
            )
            effective = prepared.effective_date or time.strftime("%Y-%m-%d", time.gmtime())
            fresh = [
                Chunk(
                    **{
                        **c.__dict__,
                        "chunk_id": c.chunk_id.replace(prepared.doc_id + "::", doc_id + "::", 1),
                        "doc_id": doc_id,
                        "version": version,
                        "effective_date": effective,
                    }
                )
                for c in prepared.chunks
            ]
            p = PreparedDocument(
                prepared.name,
                prepared.kind,
                doc_id,
                prepared.title,
                version,
                effective,
                fresh,
                prepared.issues,
                prepared.file_sha256,
                prepared.text_sha256,
                prepared.notes,
                prepared.ocr_confidence,
                prepared.audience,
            )
            if progress:
                progress(0.1, f"comparing {len(fresh)} chunks with version {old_version}")
            existing = {n.node_id: n for n in self.index.get_nodes([c.chunk_id for c in fresh], with_embeddings=True)}
            new, touched, changes = [], [], {}
            uploaded: dict[str, object] = dict(self._upload_meta(p, identity))
            if p.audience:  # the new version names an audience: the kept chunks take it too
                uploaded.update(audience_metadata(normalise_groups(p.audience)))
            for chunk in fresh:
                node = existing.get(chunk.chunk_id)
                if node is None:
                    new.append(self._upload_node(chunk, p, identity))
                else:  # same text: keep the vector, take the new version's metadata
                    touched.append(node)
                    changes[node.node_id] = {
                        "status": ACTIVE,
                        "version": version,
                        "effective_date": effective,
                        "title": p.title,
                        "superseded_by": "",
                        "retired_at": "",
                        **uploaded,
                        **({"page": chunk.page} if chunk.page or "page" in node.metadata else {}),
                    }
            superseded_by = f"{doc_id}@{version}"
            for node in old:
                if node.node_id not in changes:
                    touched.append(node)
                    changes[node.node_id] = {"status": DEPRECATED, "superseded_by": superseded_by}
            self._change(
                identity,
                "document_replaced",
                doc_id,
                changes,
                touched,
                new,
                old_version=old_version,
                version=version,
                file=p.name,
                file_sha256=p.file_sha256,
                unchanged=len(fresh) - len(new),
            )
            deprecated = [i for i, c in changes.items() if c["status"] == DEPRECATED]
            return ChangeResult(
                doc_id,
                f"Replaced {doc_id} v{old_version} by v{version}: {len(new)} chunks "
                f"embedded, {len(fresh) - len(new)} unchanged, {len(deprecated)} deprecated (kept).",
                [n.node_id for n in new],
                deprecated,
            )

    def set_audience(self, identity: Identity, doc_id: str, groups: str) -> ChangeResult:
        """Who may read a document: "everyone", or groups ("hr, finance"). Every chunk of it
        (deprecated versions too) takes the new audience; audited."""
        require(identity, "ingest")
        doc_id = str(doc_id or "").strip()
        wanted = normalise_groups(groups)
        with self._lock:
            nodes = self.index.get_nodes(where={"doc_id": doc_id}, with_embeddings=True)
            if not nodes:
                raise DocumentRefused(f"No document {doc_id!r}; see the library for the ids.")
            before = audience_label(groups_of(nodes[0].metadata))
            changes = {
                n.node_id: audience_metadata(wanted, n.metadata) for n in nodes if groups_of(n.metadata) != wanted
            }
            label = audience_label(wanted)
            if not changes:
                return ChangeResult(doc_id, f"{doc_id} is already readable by {label}.")
            touched = [n for n in nodes if n.node_id in changes]
            self._change(identity, "document_audience", doc_id, changes, touched, [], old=before, audience=label)
            return ChangeResult(doc_id, f"{doc_id} is now readable by {label}.", changed=list(changes))

    def retire(self, identity: Identity, doc_id: str, reason: str = "") -> ChangeResult:
        """Deprecate every active chunk of a document (kept; `restore` brings them back). A reason
        is required: it goes into the audit record."""
        require(identity, "ingest")
        doc_id = str(doc_id or "").strip()
        reason = " ".join(str(reason or "").split())
        if not reason:
            raise DocumentRefused(f"Give a reason for retiring {doc_id or 'the document'}; the audit log keeps it.")
        if len(reason) > 500:
            raise DocumentRefused("Please keep the reason under 500 characters.")
        with self._lock:
            old = self.index.get_nodes(where={"$and": [{"doc_id": doc_id}, {"status": ACTIVE}]}, with_embeddings=True)
            if not old:
                raise DocumentRefused(f"No active document {doc_id!r} to retire.")
            stamp = _now()
            changes = {
                n.node_id: {"status": DEPRECATED, "retired_at": stamp, "retired_by": identity.username} for n in old
            }
            self._change(identity, "document_retired", doc_id, changes, old, [], reason=reason)
            return ChangeResult(
                doc_id,
                f"Retired {doc_id}: {len(old)} chunks deprecated (kept; restore to undo).",
                changed=list(changes),
            )

    def restore(self, identity: Identity, doc_id: str) -> ChangeResult:
        """Undo `retire`: the chunks it deprecated become active again."""
        require(identity, "ingest")
        doc_id = str(doc_id or "").strip()
        with self._lock:
            if self.index.collection.get(where={"$and": [{"doc_id": doc_id}, {"status": ACTIVE}]}, include=[])["ids"]:
                raise DocumentRefused(f"{doc_id} is active; there is nothing to restore.")
            nodes = [
                n
                for n in self.index.get_nodes(where={"doc_id": doc_id}, with_embeddings=True)
                if n.metadata.get("retired_at")
            ]
            if not nodes:
                raise DocumentRefused(f"No retired document {doc_id!r}.")
            latest = max(n.metadata["retired_at"] for n in nodes)
            nodes = [n for n in nodes if n.metadata["retired_at"] == latest]
            changes = {n.node_id: {"status": ACTIVE, "retired_at": "", "retired_by": ""} for n in nodes}
            self._change(identity, "document_restored", doc_id, changes, nodes, [])
            return ChangeResult(doc_id, f"Restored {doc_id}: {len(nodes)} chunks active again.", changed=list(changes))

    # -- the crash-safe change -----------------------------------------------------------------------
    def _upload_meta(self, p: PreparedDocument, identity: Identity) -> dict[str, str | float]:
        meta: dict[str, str | float] = {
            "uploaded_by": identity.username,
            "uploaded_at": _now(),
            "file_sha256": p.file_sha256,
            "text_sha256": p.text_sha256,
            "text_source": "ocr" if p.ocr_confidence >= 0 else "",
        }
        if p.ocr_confidence >= 0:
            meta["ocr_confidence"] = round(p.ocr_confidence, 1)
        return meta

    def _upload_node(self, chunk: Chunk, p: PreparedDocument, identity: Identity) -> TextNode:
        return chunk_to_node(chunk, origin="upload", metadata_extra=self._upload_meta(p, identity), retired_at="")

    def _change(
        self,
        identity: Identity,
        event: str,
        doc_id: str,
        changes: dict[str, dict],
        touched: list[TextNode],
        new: list[TextNode],
        sentence_rows: dict[str, Row] | None = None,
        refresh: bool = True,
        **details,
    ) -> None:
        # Before the journal: a crash while embedding changes nothing. The new chunks' sentence
        # vectors are embedded in the same pass and stored with the chunks (`_apply`).
        rows = self.index.embed_nodes(new, sentences=sentence_rows is None)
        rows.update(sentence_rows or {})
        plan = {
            "event": event,
            "doc_id": doc_id,
            "phase": "applying",
            "started_at": _now(),
            "actor": identity.username,
            "old": [_record(n) for n in touched],
            "changes": changes,
            "new": [_record(n) for n in new],
        }
        self.journal.write_journal(plan)
        try:
            self._apply(plan, rows)
        except BaseException:
            self._rollback(plan)
            self.journal.clear_journal()
            raise
        if refresh:
            self.engine.refresh()
        self.audit.append(
            event,
            identity.username,
            doc_id=doc_id,
            created=[n.node_id for n in new],
            deprecated=[i for i, c in changes.items() if c.get("status") == DEPRECATED],
            reactivated=[i for i, c in changes.items() if c.get("status") == ACTIVE],
            **details,
        )
        self.journal.clear_journal()

    def _apply(self, plan: dict, sentence_rows: dict[str, Row] | None = None) -> None:
        present = {
            n.node_id: n for n in self.index.get_nodes([o["id"] for o in plan["old"]] + [n["id"] for n in plan["new"]])
        }
        with self.index.write_lock:
            for old in plan["old"]:
                change = plan["changes"][old["id"]]
                node = present.get(old["id"])
                if node is None:  # lost between the delete and re-add of a killed process
                    self.index.add_nodes([_node(old, **change)])
                elif any(node.metadata.get(k) != v for k, v in change.items()):
                    self.index.update_metadata([old["id"]], **change)
            missing = [_node(n) for n in plan["new"] if n["id"] not in present]
            if missing:
                self.index.add_nodes(missing, sentence_rows=sentence_rows)

    def _rollback(self, plan: dict) -> None:
        with self.index.write_lock:
            self.index.delete([n.node_id for n in self.index.get_nodes([n["id"] for n in plan["new"]])])
            present = {n.node_id: n for n in self.index.get_nodes([o["id"] for o in plan["old"]])}
            for old in plan["old"]:
                before = {k: old["metadata"].get(k, "") for k in plan["changes"][old["id"]]}
                node = present.get(old["id"])
                if node is None:
                    self.index.add_nodes([_node(old)])
                elif any(node.metadata.get(k, "") != v for k, v in before.items()):
                    self.index.update_metadata([old["id"]], **before)
        self.engine.refresh()

    def recover(self) -> str:
        """Roll back a document change left half-done by a killed process; "" when there was none."""
        with self._lock:
            plan = self.journal.read_journal()
            if plan is None:
                return ""
            self._rollback(plan)
            self.journal.clear_journal()
            # `event` names this record (append's first argument); the interrupted change's event is `change`.
            self.audit.append(
                "document_change_rolled_back", "system", doc_id=plan.get("doc_id", ""), change=plan.get("event", "")
            )
            return "rolled_back"


def read_upload_bytes(path: Path, limit: int) -> bytes:
    """A file's bytes, refusing one over `limit` before reading it."""
    size = Path(path).stat().st_size
    if size > limit:
        raise ConversionRefused(
            f"{Path(path).name} is {size / 1048576:.1f} MB; the limit is {limit // 1048576} MB per file."
        )
    return Path(path).read_bytes()
