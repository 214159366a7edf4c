"""Applying an approved ticket to the corpus, crash-safely and idempotently.

Before the index is touched, the whole change is written to `<home>/apply_journal.json`
(atomically: temp file + fsync + rename): the old chunks with their embeddings and the new chunk
versions with theirs, and any section the reviewer adds to a document (a claim that adds a rule).
Then the old chunks are deprecated (kept, `superseded_by` set) and the new ones added. `recover()` at start-up reads a journal left behind by a killed process: a change that
had not been committed is rolled back (old chunks restored exactly, even one lost between the
delete and re-add of a metadata update; new chunks removed), a committed one is completed. So the
corpus is always fully before or fully after. Every step checks the current state first, so running
it twice changes nothing the second time.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

from pipeline.ground.records import Chunk
from pipeline.ingest.index import ACTIVE, DEPRECATED, ChunkIndex, chunk_to_node
from pipeline.language.text import slugify

Hook = Callable[[str], None]


def bump_version(version: str) -> str:
    """ "1.0" -> "1.1", "2" -> "2.1", "1.9" -> "1.10"."""
    parts = str(version or "1").split(".")
    if len(parts) > 1 and parts[-1].isdigit():
        parts[-1] = str(int(parts[-1]) + 1)
        return ".".join(parts)
    return f"{version or '1'}.1"


def _version_key(version: str) -> tuple:
    """ "1.10" after "1.9": versions compared part by part, numbers as numbers."""
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in str(version or "").split("."))


def new_chunk_id(ticket_id: str, old: TextNode) -> str:
    """Deterministic, so a retried apply targets the same id."""
    digest = hashlib.sha256(f"{ticket_id}\n{old.node_id}".encode()).hexdigest()[:12]
    return f"{old.metadata.get('doc_id', 'doc')}::{slugify(old.metadata.get('section', ''))}::t{digest}"


def addition_chunk_id(ticket_id: str, doc_id: str, heading: str) -> str:
    """Deterministic, so a retried apply targets the same id."""
    digest = hashlib.sha256(f"{ticket_id}\n{doc_id}\n{heading}".encode()).hexdigest()[:12]
    return f"{doc_id}::{slugify(heading)}::t{digest}"


def _node_record(node: TextNode) -> dict:
    return {
        "id": node.node_id,
        "text": node.text,
        "metadata": dict(node.metadata),
        "embedding": list(node.embedding or []),
    }


def _node_from_record(record: dict, **changes) -> TextNode:
    metadata = dict(record["metadata"])
    metadata.update(changes)
    node = TextNode(id_=record["id"], text=record["text"], metadata=metadata, embedding=record["embedding"])
    node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=metadata.get("doc_id", ""))
    node.excluded_embed_metadata_keys = list(metadata)
    node.excluded_llm_metadata_keys = list(metadata)
    return node


class CorpusEvolution:
    """Plans, applies, rolls back and recovers ticket changes on one `ChunkIndex`."""

    def __init__(self, index: ChunkIndex, journal_path: Path) -> None:
        self.index = index
        self.journal_path = Path(journal_path)

    # -- the journal ------------------------------------------------------------------------------
    def read_journal(self) -> dict | None:
        try:
            return json.loads(self.journal_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None

    def write_journal(self, plan: dict) -> None:
        self.journal_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.journal_path.with_suffix(".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(plan))  # `dumps` runs the C encoder; `dump` to a file, Python's
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.journal_path)

    def clear_journal(self) -> None:
        self.journal_path.unlink(missing_ok=True)

    # -- planning ---------------------------------------------------------------------------------
    def plan(
        self, ticket_id: str, replacements: dict[str, str], effective_date: str = "", addition: dict | None = None
    ) -> dict:
        """The full change: old chunks (with embeddings) and their new versions (embedded now), and
        a new section (`addition`: doc_id, heading, text) added to an active document.

        `new` lists the old chunks' new versions in their order, then the added section."""
        effective_date = effective_date or time.strftime("%Y-%m-%d", time.gmtime())
        olds = self.index.get_nodes(list(replacements), with_embeddings=True)
        if len(olds) != len(replacements):
            missing = set(replacements) - {n.node_id for n in olds}
            raise ValueError(f"Affected chunk(s) no longer in the index: {', '.join(sorted(missing))}.")
        inactive = [n.node_id for n in olds if n.metadata.get("status") != ACTIVE]
        if inactive:
            raise ValueError(
                f"Chunk(s) already superseded by another change: {', '.join(inactive)}. "
                "Reject this ticket or file it again against the current text."
            )
        new_nodes = []
        for old in olds:
            text = replacements[old.node_id].strip()
            if not text:
                raise ValueError("The replacement text is empty.")
            meta = old.metadata
            chunk = Chunk(
                chunk_id=new_chunk_id(ticket_id, old),
                doc_id=meta.get("doc_id", ""),
                title=meta.get("title", ""),
                section=meta.get("section", ""),
                section_numbers=str(meta.get("section_numbers", "")),
                text=text,
                version=bump_version(str(meta.get("version", ""))),
                effective_date=effective_date,
                owner=meta.get("owner", ""),
                source=meta.get("source", ""),
                position=int(meta.get("position", 0)),
                content_hash=hashlib.sha256(text.encode("utf-8")).hexdigest()[:16],
                page=int(meta.get("page", 0) or 0),  # the amended text stands where the old one did
            )
            node = chunk_to_node(chunk, status=ACTIVE, origin="ticket", supersedes=old.node_id, ticket_id=ticket_id)
            new_nodes.append(node)
        if addition:
            new_nodes.append(self._added_section(ticket_id, addition, effective_date))
        self.index.embed_nodes(new_nodes)
        return {
            "ticket_id": ticket_id,
            "phase": "applying",
            "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "old": [_node_record(n) for n in olds],
            "new": [_node_record(n) for n in new_nodes],
        }

    def _added_section(self, ticket_id: str, addition: dict, effective_date: str) -> TextNode:
        """A new section of an active document: the document's title, owner and source, the next
        version of the document and the last position in it."""
        doc_id, heading, text = addition["doc_id"], addition["heading"].strip(), addition["text"].strip()
        siblings = self.index.get_nodes(where={"$and": [{"doc_id": doc_id}, {"status": ACTIVE}]})
        if not siblings:
            raise ValueError(f"No active document {doc_id!r} to add the section to.")
        if not heading or not text:
            raise ValueError("A new section needs a heading and its text.")
        meta = siblings[0].metadata
        version = max((str(n.metadata.get("version", "")) for n in siblings), key=_version_key)
        chunk = Chunk(
            chunk_id=addition_chunk_id(ticket_id, doc_id, heading),
            doc_id=doc_id,
            title=meta.get("title", ""),
            section=heading,
            section_numbers="",
            text=text,
            version=bump_version(version),
            effective_date=effective_date,
            owner=meta.get("owner", ""),
            source=meta.get("source", ""),
            position=1 + max(int(n.metadata.get("position", 0)) for n in siblings),
            content_hash=hashlib.sha256(text.encode("utf-8")).hexdigest()[:16],
        )
        return chunk_to_node(chunk, status=ACTIVE, origin="ticket", supersedes="", ticket_id=ticket_id)

    # -- applying and undoing ---------------------------------------------------------------------
    def apply(self, plan: dict, hook: Hook | None = None) -> dict:
        """Deprecate the old chunks and add the new ones; each step skipped when already done."""
        hook = hook or (lambda step: None)
        pairs = list(zip(plan["old"], plan["new"], strict=False))
        present = {
            n.node_id: n for n in self.index.get_nodes([o["id"] for o in plan["old"]] + [n["id"] for n in plan["new"]])
        }
        deprecated = []
        with self.index.write_lock:
            for old, new in pairs:
                node = present.get(old["id"])
                if node is None:  # lost between delete and re-add by a killed process
                    self.index.add_nodes([_node_from_record(old, status=DEPRECATED, superseded_by=new["id"])])
                    deprecated.append(old["id"])
                elif node.metadata.get("status") != DEPRECATED or node.metadata.get("superseded_by") != new["id"]:
                    self.index.update_metadata([old["id"]], status=DEPRECATED, superseded_by=new["id"])
                    deprecated.append(old["id"])
            hook("deprecated")
            created = []
            for new in plan["new"]:  # the new versions, then any added section
                if new["id"] not in present:
                    self.index.add_nodes([_node_from_record(new)])
                    created.append(new["id"])
            hook("created")
        return {"deprecated": deprecated, "created": created}

    def rollback(self, plan: dict) -> dict:
        """Back to exactly before: new chunks removed, old chunks active again with their own data."""
        with self.index.write_lock:
            new_ids = [n["id"] for n in plan["new"]]
            existing_new = [n.node_id for n in self.index.get_nodes(new_ids)]
            self.index.delete(existing_new)
            present = {n.node_id: n for n in self.index.get_nodes([o["id"] for o in plan["old"]])}
            restored = []
            for old in plan["old"]:
                node = present.get(old["id"])
                if node is None:
                    self.index.add_nodes([_node_from_record(old)])
                    restored.append(old["id"])
                elif node.metadata.get("status") != old["metadata"].get("status") or node.metadata.get(
                    "superseded_by"
                ) != old["metadata"].get("superseded_by"):
                    self.index.update_metadata(
                        [old["id"]],
                        status=old["metadata"].get("status", ACTIVE),
                        superseded_by=old["metadata"].get("superseded_by", ""),
                    )
                    restored.append(old["id"])
        return {"removed": existing_new, "restored": restored}

    def state_of(self, plan: dict) -> str:
        """ "before", "after", or "partial" - what the index holds for this plan right now."""
        nodes = {
            n.node_id: n for n in self.index.get_nodes([o["id"] for o in plan["old"]] + [n["id"] for n in plan["new"]])
        }
        olds = [nodes.get(o["id"]) for o in plan["old"]]
        news = [nodes.get(n["id"]) for n in plan["new"]]
        if all(o is not None and o.metadata.get("status") == ACTIVE for o in olds) and all(n is None for n in news):
            return "before"
        if all(o is not None and o.metadata.get("status") == DEPRECATED for o in olds) and all(
            n is not None and n.metadata.get("status") == ACTIVE for n in news
        ):
            return "after"
        return "partial"
