"""A cited chunk in its document: what the document view shows when a reader opens a source.

`document_around(index, chunk_id)` reads the chunk's document from the index: its active chunks
in document order, with the cited one marked. A cited chunk that has since been replaced (an
approved claim) or retired is kept as history; it is returned beside the current text, marked as
no longer in force, so an old answer's source still opens and says so. The page number is shown
where a chunk's metadata carries one (`page`, set for PDFs at ingest).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.ground.audience import EVERYTHING, Audience
from pipeline.ingest.index import ACTIVE


@dataclass(frozen=True)
class Passage:
    chunk_id: str
    section: str
    text: str
    page: str = ""
    cited: bool = False


@dataclass(frozen=True)
class DocumentView:
    doc_id: str
    title: str
    version: str
    effective_date: str
    owner: str
    cited: Passage
    in_force: bool  # False: the cited passage was replaced or retired since it was cited
    passages: list[Passage] = field(default_factory=list)  # the document's active chunks, in order

    @property
    def section_path(self) -> list[str]:
        """Document title, then the cited section (with its page, when known)."""
        page = f"page {self.cited.page}" if self.cited.page else ""
        return [p for p in (self.title, self.cited.section, page) if p]


def _page(meta: dict) -> str:
    page = meta.get("page")
    return "" if page in (None, "", 0) else str(page)


def _passage(node, cited_id: str) -> Passage:
    meta = node.metadata
    return Passage(node.node_id, str(meta.get("section", "")), node.text, _page(meta), node.node_id == cited_id)


def document_around(index, chunk_id: str, audience: Audience = EVERYTHING) -> DocumentView | None:
    """The document of chunk `chunk_id` with that chunk marked, or None when no such chunk exists
    or `audience` may not read it (the same None, so a restricted document's existence stays unseen)."""
    found = index.get_nodes([chunk_id]) if chunk_id else []
    if not found or not audience.can_read(found[0].metadata):
        return None
    cited = found[0]
    meta = cited.metadata
    doc_id = str(meta.get("doc_id", ""))
    siblings = index.get_nodes(where={"$and": [{"doc_id": doc_id}, {"status": ACTIVE}]}) if doc_id else []
    siblings.sort(key=lambda n: (int(str(n.metadata.get("position") or 0)), n.node_id))
    return DocumentView(
        doc_id=doc_id,
        title=str(meta.get("title", "")),
        version=str(meta.get("version", "")),
        effective_date=str(meta.get("effective_date", "")),
        owner=str(meta.get("owner", "")),
        cited=_passage(cited, chunk_id),
        in_force=meta.get("status") == ACTIVE,
        passages=[_passage(n, chunk_id) for n in siblings],
    )
