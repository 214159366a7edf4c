"""The critic for admins: an upload before it is added, and every active document of the library.

Read-only: nothing is written, nothing audited. Every method takes the acting identity and
requires the `ingest` permission (the Documents tab's admins), on the server.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from governance.critic.conflicts import Embed
from governance.critic.critic import critique
from governance.critic.flagger import DEFAULT_MODEL, SentenceFlagger, load_flagger
from governance.critic.reading import PolicyText, read_policy
from governance.critic.records import DocumentCritique
from governance.identity import Identity, require
from pipeline.ingest.convert import convert
from pipeline.ingest.index import ACTIVE

# A chunk's first line is a heading the chunker kept in its text when it merged small sections:
# a short line without a sentence's end, followed by more lines.
_MAX_HEADING_WORDS = 12


def embedder(model) -> Embed | None:
    """Sentence vectors from the app's MiniLM (`embed_many`, which recalls the sentences a check's
    conflict scan just embedded), for pairing contradictions by meaning."""
    if model is None:
        return None
    if hasattr(model, "embed_many"):
        return lambda texts: np.asarray(model.embed_many(texts), dtype=np.float32)
    return lambda texts: np.asarray(model.get_text_embedding_batch(texts), dtype=np.float32)


def _chunk_markdown(section: str, text: str) -> str:
    """A chunk as Markdown: its section as a heading, and headings merged into its text marked so."""
    lines = [f"## {section}"] if section else []
    for paragraph in text.split("\n\n"):
        first, _, rest = paragraph.partition("\n")
        if rest and len(first.split()) <= _MAX_HEADING_WORDS and not first.rstrip().endswith((".", ":", ";", ",")):
            lines += [f"### {first.strip()}", rest]
        else:
            lines.append(paragraph)
    return "\n\n".join(lines)


# The sentences the app's critic reads in one request (one check of uploads, or the whole library):
# about 400 KB of text, longer than any policy we have seen, and 50 to 95 s of one core with MiniLM
# and the flagger, by machine (`python -m scenarios.bench.critic`). A 10 MB text upload holds some 80,000
# sentences, and a library of a hundred policies 10,000 or more: read whole, either would hold the
# Documents tab for many minutes.
MAX_CRITIQUED_SENTENCES = 3000


class PolicyCritic:
    """Critiques of uploads and of the active library for admins.

    With a sentence model (`embed_model` or `embed`), contradictions are paired by meaning and the
    trained flagger at `flagger_path` (loaded on first use) decides the sentence flags; without
    one, the rules alone (`--no-model`). One request (`critique_uploads`, `critique_library`)
    reads at most `max_sentences` sentences in all, in document order: a document past that budget
    is read in part or not at all, and its critique counts what was left (`unread`). None reads
    everything, as the command line does."""

    def __init__(
        self,
        index,
        embed_model=None,
        embed: Callable[[list[str]], np.ndarray] | None = None,
        flagger_path: Path | None = DEFAULT_MODEL,
        max_sentences: int | None = MAX_CRITIQUED_SENTENCES,
    ) -> None:
        self.index = index
        self.max_sentences = max_sentences
        self.embed = embed or embedder(embed_model)
        self._flagger_path = flagger_path if self.embed is not None else None

    @property
    def flagger(self) -> SentenceFlagger | None:
        return load_flagger(self._flagger_path) if self._flagger_path is not None else None

    def critique_upload(self, identity: Identity, data: bytes, name: str) -> DocumentCritique:
        """A file as it would be added (converted the same way); raises ConversionRefused (a
        ValueError with a plain reason) for a file the library would refuse."""
        return self.critique_uploads(identity, [(data, name)])[0]

    def critique_uploads(self, identity: Identity, contents: list[tuple[bytes, str]]) -> list[DocumentCritique]:
        """Files as they would be added, in order, sharing one budget of sentences. Every file is
        converted before any is read, so a refused file (ConversionRefused, a ValueError with a
        plain reason) costs no critique."""
        require(identity, "ingest")
        converted = [(convert(data, name), name) for data, name in contents]
        return self._within_budget(read_policy(c.markdown, name, c.title) for c, name in converted)

    def critique_library(self, identity: Identity) -> list[DocumentCritique]:
        """Every active document, rebuilt from its active chunks in document order."""
        require(identity, "ingest")
        nodes = self.index.get_nodes(where={"status": ACTIVE})
        by_doc = defaultdict(list)
        for node in nodes:
            by_doc[node.metadata.get("doc_id", "")].append(node)
        documents = []
        for doc_id, chunks in sorted(by_doc.items()):
            chunks.sort(key=lambda n: (int(n.metadata.get("position", 0) or 0), n.node_id))
            markdown = "\n\n".join(_chunk_markdown(str(n.metadata.get("section", "")), n.text) for n in chunks)
            title = str(chunks[0].metadata.get("title", ""))
            documents.append(read_policy(markdown, doc_id, title))
        return self._within_budget(documents)

    def _within_budget(self, documents: Iterable[PolicyText]) -> list[DocumentCritique]:
        """Critiques of `documents` in order, reading at most `max_sentences` sentences in all."""
        out = []
        left = self.max_sentences
        flagger = self.flagger
        for document in documents:
            out.append(critique(document, self.embed, flagger, left))
            if left is not None:
                left -= len(out[-1].sentences)
        return out
