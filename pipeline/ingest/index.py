"""The persistent chunk index: LlamaIndex `VectorStoreIndex` over a Chroma `PersistentClient`.

Chroma stores each node twice (flat metadata for filtering, `_node_content` JSON for rebuilding
the node), so a status change is done by reading the entry with its embedding, editing the node,
deleting and re-adding it (see GOTCHAS.md).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import chromadb
from chromadb.api import ClientAPI
from chromadb.config import Settings as ChromaSettings
from llama_index.core import Settings, VectorStoreIndex
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.llms import MockLLM
from llama_index.core.schema import NodeRelationship, NodeWithScore, QueryBundle, RelatedNodeInfo, TextNode
from llama_index.core.vector_stores import MetadataFilter, MetadataFilters
from llama_index.core.vector_stores.utils import metadata_dict_to_node
from llama_index.vector_stores.chroma import ChromaVectorStore

from pipeline.ground.audience import AUDIENCE_KEY, EVERYTHING, RESTRICTED_KEY, Audience, audience_metadata, groups_of
from pipeline.ground.audience import normalise_groups as _normalise_groups
from pipeline.ground.records import Chunk
from pipeline.ingest.chunking import ChunkIssue, audit_chunks, chunk_document
from pipeline.ingest.documents import DocumentError, find_documents, read_document
from pipeline.ingest.sentence_vectors import Row, SentenceVectorStore

log = logging.getLogger(__name__)

COLLECTION = "warrant_chunks"
ACTIVE = "active"
DEPRECATED = "deprecated"
_ADD_BATCH = 2000
_EMBED_SLICE = 64  # texts per call to the model: its lock is released between calls
# Chroma's metadata-filtered search costs ~0.1 s at 30k chunks and ~1 s at 100k; an unfiltered
# search over-fetching by the number of deprecated chunks returns the same top-k active chunks.
MAX_OVERFETCH = 200

_T = TypeVar("_T")


def _included(values: _T | None, name: str) -> _T:
    """A field of a Chroma `get` result that was asked for in `include`: Chroma types every such
    field as optional, since it is None when it was not asked for."""
    if values is None:
        raise RuntimeError(f"Chroma returned no {name} though they were asked for")
    return values


@dataclass
class IngestReport:
    documents: int = 0
    chunks_total: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    chunks_unchanged: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    issues: list[ChunkIssue] = field(default_factory=list)

    def summary(self) -> str:
        lines = [
            f"ingested {self.documents} documents: {self.chunks_total} chunks "
            f"({self.chunks_added} embedded, {self.chunks_unchanged} unchanged, "
            f"{self.chunks_removed} removed) in {self.seconds:.1f}s"
        ]
        if self.issues:
            lines.append(f"chunk audit: {len(self.issues)} flags")
            lines.extend(f"  - {i.chunk_id}: {i.problem}" for i in self.issues)
        else:
            lines.append("chunk audit: no chunk too short, too long or without a heading")
        lines.extend(f"error: {e}" for e in self.errors)
        return "\n".join(lines)


class ActiveChunkRetriever(BaseRetriever):
    """Top-k *active* chunks that `audience` may read.

    While the index holds no restricted chunk, the status filter is done without Chroma's slow
    filtered search: among the top k + d unfiltered hits (d = deprecated chunks) at least k are
    active, and they are exactly the top-k active ones; with more than MAX_OVERFETCH deprecated
    chunks it falls back to the metadata-filtered search. Once any document is restricted to some
    groups, the audience goes into the vector store query itself (`Audience.where`), so the top k
    are the reader's top k and nothing outside their audience comes back from Chroma at all.
    """

    def __init__(self, chunk_index: ChunkIndex, top_k: int, audience: Audience = EVERYTHING) -> None:
        super().__init__()
        self._chunks = chunk_index
        self._top_k = top_k
        self._audience = audience

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        if not self._audience.everything and self._chunks.has_restricted():
            return self._chunks.filtered_retriever(self._top_k, self._audience).retrieve(query_bundle)
        deprecated = self._chunks.deprecated_count()
        if deprecated > MAX_OVERFETCH:
            return self._chunks.filtered_retriever(self._top_k).retrieve(query_bundle)
        fetch = self._top_k + deprecated
        nodes = self._chunks.index.as_retriever(similarity_top_k=fetch).retrieve(query_bundle)
        # can_read: a document restricted between has_restricted() and this search stays unread.
        readable = [
            n for n in nodes if n.node.metadata.get("status") == ACTIVE and self._audience.can_read(n.node.metadata)
        ]
        return readable[: self._top_k]


def embed_text(node: TextNode) -> str:
    """What is embedded for a chunk: its title and section name lead its text."""
    return f"{node.metadata.get('title', '')}. {node.metadata.get('section', '')}.\n{node.text}"


def chunk_to_node(
    chunk: Chunk,
    status: str = ACTIVE,
    origin: str = "ingest",
    metadata_extra: Mapping[str, str | float] | None = None,
    **extra: str,
) -> TextNode:
    metadata: dict[str, object] = {
        "doc_id": chunk.doc_id,
        "title": chunk.title,
        "section": chunk.section,
        "section_numbers": chunk.section_numbers,
        "version": chunk.version,
        "effective_date": chunk.effective_date,
        "owner": chunk.owner,
        "source": chunk.source,
        "position": chunk.position,
        "content_hash": chunk.content_hash,
        "status": status,
        "origin": origin,
        "superseded_by": "",
        "supersedes": "",
    }
    if chunk.page:
        metadata["page"] = chunk.page
    metadata.update(metadata_extra or {})
    metadata.update(extra)
    if chunk.audience:  # else the document's current audience (ChunkIndex.add_nodes)
        metadata.update(audience_metadata(_normalise_groups(chunk.audience)))
    node = TextNode(id_=chunk.chunk_id, text=chunk.text, metadata=metadata)
    node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=chunk.doc_id)
    node.excluded_embed_metadata_keys = list(metadata)
    node.excluded_llm_metadata_keys = list(metadata)
    return node


def chunk_words(node: NodeWithScore) -> str:
    """A chunk's words as the gate (pipeline.gate.support) and hybrid retrieval's BM25 read them:
    its title and section (the metadata chunk_to_node writes) lead its text."""
    meta = node.node.metadata
    return f"{meta.get('title', '')}. {meta.get('section', '')}. {node.node.get_content()}"


class ChunkIndex:
    """Owns the Chroma collection; the only code that writes to it."""

    def __init__(
        self, chroma_dir: Path, embed_model, client: ClientAPI | None = None, collection: str = COLLECTION
    ) -> None:
        """`client`: a Chroma client from `pipeline.retrieve.chroma_client.open_chroma` (a server, or the
        embedded store); without one, the embedded store in `chroma_dir`. The sentence vectors are
        kept in `chroma_dir` either way."""
        chroma_dir = Path(chroma_dir)
        chroma_dir.mkdir(parents=True, exist_ok=True)
        self.embed_model = embed_model
        Settings.embed_model = embed_model
        Settings.llm = MockLLM()  # no LLM: answers are extractive (and no OpenAI import)
        self._client = client or chromadb.PersistentClient(
            path=str(chroma_dir), settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False)
        )
        self.collection = self._client.get_or_create_collection(collection, metadata={"hnsw:space": "cosine"})
        self.vector_store = ChromaVectorStore(chroma_collection=self.collection)
        self.index = VectorStoreIndex.from_vector_store(self.vector_store, embed_model=embed_model)
        self.sentence_vectors = SentenceVectorStore(chroma_dir, self.embed_texts)
        self.write_lock = threading.RLock()

    # -- reading -------------------------------------------------------------------------------
    def count(self) -> int:
        return self.collection.count()

    def retriever(self, top_k: int, audience: Audience = EVERYTHING) -> ActiveChunkRetriever:
        """The top-k active chunks `audience` may read (every active chunk by default: the
        system's own checks; a user's question passes the user's audience)."""
        return ActiveChunkRetriever(self, top_k, audience)

    def filtered_retriever(self, top_k: int, audience: Audience = EVERYTHING, doc_id: str = "") -> BaseRetriever:
        """Chroma's metadata-filtered search: active chunks `audience` may read, and only those of
        document `doc_id` if given (a clarification's chosen option). While no chunk is restricted,
        every active chunk is readable and only the status (and document) is filtered."""
        readable = audience.where() if self.has_restricted() else None
        if readable is None:
            filters: list[MetadataFilter | MetadataFilters] = [MetadataFilter(key="status", value=ACTIVE)]
            if doc_id:
                filters.append(MetadataFilter(key="doc_id", value=doc_id))
            return self.index.as_retriever(similarity_top_k=top_k, filters=MetadataFilters(filters=filters))
        # nested $or: beyond MetadataFilters, so Chroma's own `where`
        where = {"$and": [{"status": ACTIVE}, *([{"doc_id": doc_id}] if doc_id else []), readable]}
        return self.index.as_retriever(similarity_top_k=top_k, vector_store_kwargs={"where": where})

    def deprecated_count(self) -> int:
        return len(self.collection.get(where={"status": DEPRECATED}, include=[])["ids"])

    def has_restricted(self) -> bool:
        """Whether any chunk is restricted to some groups (one indexed lookup)."""
        return bool(self.collection.get(where={RESTRICTED_KEY: True}, include=[], limit=1)["ids"])

    def get_nodes(
        self, ids: Iterable[str] | None = None, where: dict | None = None, with_embeddings: bool = False
    ) -> list[TextNode]:
        include = ["metadatas", "documents"] + (["embeddings"] if with_embeddings else [])
        kwargs: dict = {"include": include}
        ids = list(ids) if ids is not None else None
        if ids is not None:
            if not ids:
                return []
            kwargs["ids"] = ids
        if where:
            kwargs["where"] = where
        result = self.collection.get(**kwargs)
        metadatas = _included(result["metadatas"], "metadatas")
        documents = _included(result["documents"], "documents")
        embeddings = result["embeddings"] if with_embeddings else None
        if with_embeddings and embeddings is None:
            raise RuntimeError("Chroma returned no embeddings though they were asked for")
        nodes = []
        for i, node_id in enumerate(result["ids"]):
            node = metadata_dict_to_node(dict(metadatas[i]), text=documents[i])
            if not isinstance(node, TextNode):
                raise TypeError(f"chunk {node_id} is stored as a {type(node).__name__}, not a TextNode")
            node.id_ = node_id
            if embeddings is not None:
                node.embedding = list(map(float, embeddings[i]))
            nodes.append(node)
        return nodes

    def active_texts(self, audience: Audience = EVERYTHING) -> list[str]:
        """The texts of the active chunks `audience` may read."""
        readable = audience.where()
        where: dict = {"status": ACTIVE} if readable is None else {"$and": [{"status": ACTIVE}, readable]}
        result = self.collection.get(where=where, include=["documents"])
        return list(_included(result["documents"], "documents"))

    def audience_of(self, doc_id: str) -> dict[str, object]:
        """The audience metadata of a document's chunks (an active one's, else any one's); the
        public audience for a document not in the index, or indexed before audiences existed."""
        wheres: list[dict] = [{"$and": [{"doc_id": doc_id}, {"status": ACTIVE}]}, {"doc_id": doc_id}]
        for where in wheres:
            found = self.collection.get(where=where, include=["metadatas"], limit=1)
            if found["ids"]:
                return audience_metadata(groups_of(_included(found["metadatas"], "metadatas")[0]))
        return audience_metadata(())

    # -- writing -------------------------------------------------------------------------------
    def embed_texts(self, texts: list[str]) -> list[list[float]]:
        """Embeddings of `texts` in their order; a text given twice is embedded once.

        The model pads a batch to its longest text, so the texts are embedded in order of length
        (as `SentenceTransformer.encode` does within one call) rather than in document order.
        With `MiniLMEmbedding` they go in groups of about `ingest_token_budget` padded tokens
        (`embed_many`); another embedding model gets them sorted, in slices. Either way the model's
        lock is released between groups, so chat questions are embedded during a large upload.
        """
        if not texts:
            return []
        distinct = list(dict.fromkeys(texts))
        embed_many = getattr(self.embed_model, "embed_many", None)
        if embed_many is not None:
            vectors = embed_many(distinct)
        else:
            order = sorted(range(len(distinct)), key=lambda i: len(distinct[i]))
            vectors = [[] for _ in distinct]
            for start in range(0, len(order), _EMBED_SLICE):
                part = order[start : start + _EMBED_SLICE]
                batch = self.embed_model.get_text_embedding_batch([distinct[i] for i in part])
                for i, vector in zip(part, batch, strict=True):
                    vectors[i] = vector
        by_text = dict(zip(distinct, vectors, strict=True))
        return [list(by_text[t]) for t in texts]

    def embed_nodes(self, nodes: list[TextNode], sentences: bool = False) -> dict[str, Row]:
        """Give each node without a vector the embedding of `embed_text(node)`.

        With `sentences`, the sentences of the nodes whose sentence vectors are not stored yet are
        embedded in the same pass (one list, sorted by length, each distinct text once) and
        returned as rows for `SentenceVectorStore.put_rows`, by chunk id; they are not stored here
        (`add_nodes` stores them with the chunks)."""
        missing = [n for n in nodes if n.embedding is None]
        todo = self.sentence_vectors.missing((n.node_id, n.get_content()) for n in nodes) if sentences else []
        chunk_texts = [embed_text(n) for n in missing]
        sentence_texts = list(dict.fromkeys(s for _, found in todo for s in found))
        if not chunk_texts and not sentence_texts:
            return {}
        vectors = self.embed_texts(chunk_texts + sentence_texts)
        for node, vector in zip(missing, vectors, strict=False):
            node.embedding = vector
        by_sentence = dict(zip(sentence_texts, vectors[len(chunk_texts) :], strict=True))
        return {row[0]: row for row in self.sentence_vectors.rows(todo, by_sentence)}

    def add_nodes(
        self, nodes: list[TextNode], sentence_vectors: bool = True, sentence_rows: dict[str, Row] | None = None
    ) -> None:
        """Embed (where no vector is given) and add; also embeds each chunk's sentences unless told
        not to (a benchmark's synthetic chunks; missing ones are then filled when first needed).
        Nodes that carry their vector (restored from a journal) are written back as they are;
        `sentence_rows` (from `embed_nodes(..., sentences=True)`) are stored, not recomputed."""
        self._inherit_audience(nodes)
        given = {n.node_id: sentence_rows[n.node_id] for n in nodes if sentence_rows and n.node_id in sentence_rows}
        self.embed_nodes([n for n in nodes if n.node_id in given])
        rows = self.embed_nodes([n for n in nodes if n.node_id not in given], sentences=sentence_vectors)
        rows.update(given)
        if rows:
            self.sentence_vectors.put_rows(list(rows.values()))
        with self.write_lock:
            for start in range(0, len(nodes), _ADD_BATCH):
                # add() is typed list[BaseNode] and a list is invariant to mypy; it only reads the nodes.
                self.vector_store.add(nodes[start : start + _ADD_BATCH])  # type: ignore[arg-type]

    def _inherit_audience(self, nodes: list[TextNode]) -> None:
        """A chunk added without an audience (a ticket's new version, a document's new chunk)
        takes its document's: a new version of a restricted section stays restricted."""
        cache: dict[str, dict[str, object]] = {}
        for node in nodes:
            if AUDIENCE_KEY in node.metadata:
                continue
            doc_id = str(node.metadata.get("doc_id", ""))
            if doc_id not in cache:
                cache[doc_id] = self.audience_of(doc_id)
            node.metadata.update(cache[doc_id])
            node.excluded_embed_metadata_keys = list(node.metadata)
            node.excluded_llm_metadata_keys = list(node.metadata)

    def delete(self, ids: list[str]) -> None:
        if ids:
            with self.write_lock:
                self.collection.delete(ids=list(ids))
                self.sentence_vectors.delete(list(ids))

    def update_metadata(self, ids: list[str], **changes: object) -> None:
        """Change metadata the safe way: read with embedding, edit, delete, re-add.

        The sentence vectors are kept: they belong to the chunk's text, which does not change."""
        with self.write_lock:
            nodes = self.get_nodes(ids, with_embeddings=True)
            for node in nodes:
                node.metadata.update(changes)
                node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=node.metadata["doc_id"])
            if nodes:
                self.collection.delete(ids=[n.node_id for n in nodes])
                self.vector_store.add(nodes)  # type: ignore[arg-type]  # as in add_nodes

    @staticmethod
    def _embed_text(node: TextNode) -> str:
        """Deprecated: use `embed_text` (kept for callers outside this package)."""
        return embed_text(node)

    def ingest_folder(self, folder: Path, min_words: int = 40, max_words: int = 320, progress=None) -> IngestReport:
        """Incremental: unchanged chunks are not embedded again; changed ones are replaced.

        Chunks created or deprecated by reviewed tickets (origin != "ingest", or deprecated) are
        history and are never removed here. A document's front-matter `audience` (everyone when
        absent) is applied to every chunk of it, the kept ones included.
        """
        started = time.perf_counter()
        report = IngestReport()
        folder = Path(folder).resolve()
        to_add: list[TextNode] = []
        to_remove: list[str] = []
        paths = find_documents(folder)
        for number, path in enumerate(paths):
            if progress:
                progress(number / max(1, len(paths)), f"reading {path.name} ({number + 1} of {len(paths)} files)")
            try:
                doc = read_document(path, folder)
            except DocumentError as exc:
                report.errors.append(str(exc))
                continue
            chunks = chunk_document(doc, min_words, max_words)
            report.documents += 1
            report.chunks_total += len(chunks)
            report.issues.extend(audit_chunks(chunks, min_words, max_words))
            existing = self.collection.get(where={"doc_id": doc.doc_id}, include=["metadatas"])
            known = dict(zip(existing["ids"], _included(existing["metadatas"], "metadatas"), strict=False))
            wanted = {c.chunk_id for c in chunks}
            groups = _normalise_groups(doc.audience)
            for chunk in chunks:
                if chunk.chunk_id in known:
                    report.chunks_unchanged += 1
                else:
                    to_add.append(chunk_to_node(chunk))
            # The front matter's audience holds for every chunk of the document, kept ones included.
            for chunk_id, meta in known.items():
                if groups_of(meta) != groups:
                    self.update_metadata([chunk_id], **audience_metadata(groups, meta))
            for chunk_id, meta in known.items():
                if chunk_id not in wanted and meta.get("origin", "ingest") == "ingest" and meta.get("status") == ACTIVE:
                    to_remove.append(chunk_id)
        if to_add:
            if progress:
                progress(0.9, f"embedding {len(to_add)} chunks")
            self.add_nodes(to_add)
        self.delete(to_remove)
        report.chunks_added = len(to_add)
        report.chunks_removed = len(to_remove)
        report.seconds = time.perf_counter() - started
        return report
