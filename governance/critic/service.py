"""The critic for admins: an upload before it is added, and every active document of the library.

Read-only: nothing is written, nothing audited. Every method takes the acting identity and
requires the `ingest` permission (the Documents tab's admins), on the server.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

from governance.critic.conflicts import Embed
from governance.critic.critic import critique, critique_text
from governance.critic.flagger import DEFAULT_MODEL, SentenceFlagger, load_flagger
from governance.critic.reading import read_policy
from governance.critic.records import DocumentCritique
from governance.identity import Identity, require
from pipeline.ingest.convert import convert
from pipeline.ingest.index import ACTIVE

# A chunk's first line is a heading the chunker kept in its text when it merged small sections:
# a short line without a sentence's end, followed by more lines.
_MAX_HEADING_WORDS = 12


def embedder(model) -> Embed | None:
    """Sentence vectors from the app's MiniLM (`embed_many`), for pairing contradictions by meaning."""
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


# The sentences of one document the app's critic reads: about 400 KB of text, longer than any
# policy we have seen, and some 50 s of one core with MiniLM and the flagger
# (`python -m scenarios.bench.critic`). A 10 MB text upload holds some 80,000 sentences: read
# whole, it would hold the Documents tab for over twenty minutes.
MAX_CRITIQUED_SENTENCES = 3000


class PolicyCritic:
    """Critiques of uploads and of the active library for admins.

    With a sentence model (`embed_model` or `embed`), contradictions are paired by meaning and the
    trained flagger at `flagger_path` (loaded on first use) decides the sentence flags; without
    one, the rules alone (`--no-model`). Each document is read up to its first `max_sentences`
    (None: all of it, as the command line reads files)."""

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
        require(identity, "ingest")
        converted = convert(data, name)
        return critique_text(converted.markdown, name, converted.title, self.embed, self.flagger, self.max_sentences)

    def critique_library(self, identity: Identity) -> list[DocumentCritique]:
        """Every active document, rebuilt from its active chunks in document order."""
        require(identity, "ingest")
        nodes = self.index.get_nodes(where={"status": ACTIVE})
        by_doc = defaultdict(list)
        for node in nodes:
            by_doc[node.metadata.get("doc_id", "")].append(node)
        out = []
        flagger = self.flagger
        for doc_id, chunks in sorted(by_doc.items()):
            chunks.sort(key=lambda n: (int(n.metadata.get("position", 0) or 0), n.node_id))
            markdown = "\n\n".join(_chunk_markdown(str(n.metadata.get("section", "")), n.text) for n in chunks)
            title = str(chunks[0].metadata.get("title", ""))
            out.append(critique(read_policy(markdown, doc_id, title), self.embed, flagger, self.max_sentences))
        return out
