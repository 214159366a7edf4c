"""An answer whose cited sentences disagree says so, in plain words, and names whom to ask.

Two active documents may state one rule with different facts (a remote-work allowance of 2 days a
week in one, 3 in another). Both sentences are cited and each is supported by its own chunk, so
the verifier passes them; the reader would have to notice. After the answer is written, every
pair of cited sentences from different chunks is compared (pipeline.language.statements.disagreement,
with the cosine of their stored sentence embeddings) and each disagreement becomes a sentence of
its own after the answer: "These two policies disagree: … [1] … [2]. Ask <owner>."

σ and the decision are not touched: this reads the answer's citations, whoever wrote it.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from llama_index.core.schema import NodeWithScore

from pipeline.ground.records import ASK_WHEN_NO_OWNER, Answer, Citation
from pipeline.language.statements import disagreement
from pipeline.language.text import split_sentences

MAX_PAIRS = 2  # a note longer than two pairs stops being read


def _sentence_vector(sentence: str, sentences: list[str], matrix: np.ndarray | None) -> np.ndarray | None:
    if matrix is None or sentence not in sentences:
        return None
    position = sentences.index(sentence)
    return matrix[position] if position < len(matrix) else None


def cited_disagreements(
    citations: list[Citation], texts: Mapping[str, str], vectors: Mapping[str, np.ndarray]
) -> list[dict]:
    """Pairs of cited sentences, from different chunks, that state one thing with different facts.

    `texts`: chunk id → its text; `vectors`: chunk id → its sentences' normalised embeddings, in
    the order `split_sentences` gives them (pipeline.ingest.sentence_vectors)."""
    found: list[dict] = []
    sentences = {c.chunk_id: split_sentences(texts.get(c.chunk_id, "")) for c in citations}
    for i, first in enumerate(citations):
        for second in citations[i + 1 :]:
            if first.chunk_id == second.chunk_id:
                continue
            for a in first.sentence_quotes():
                for b in second.sentence_quotes():
                    va = _sentence_vector(a, sentences[first.chunk_id], vectors.get(first.chunk_id))
                    vb = _sentence_vector(b, sentences[second.chunk_id], vectors.get(second.chunk_id))
                    if va is None or vb is None:
                        continue
                    what = disagreement(a, b, float(va @ vb))
                    if what:
                        found.append(
                            {
                                "n": [first.n, second.n],
                                "chunks": [first.chunk_id, second.chunk_id],
                                "titles": [first.title, second.title],
                                "sections": [first.section, second.section],
                                "sentences": [a, b],
                                "what": what,
                            }
                        )
    return found[:MAX_PAIRS]


def _ask(owners: list[str]) -> str:
    named = list(dict.fromkeys(o for o in owners if o))
    if not named:
        return f"Ask {ASK_WHEN_NO_OWNER}."
    return "Ask " + " or ".join(f"the {o}" for o in named) + "."


def conflict_note(conflicts: list[dict], owners: Mapping[str, str]) -> str:
    """The plain-words notice for `conflicts` (chunk id → owner names whom to ask)."""
    lines = []
    for c in conflicts:
        (na, nb), (ta, tb), (sa, sb) = c["n"], c["titles"], c["sentences"]
        if ta == tb:
            lines.append(f"These two sections of the {ta} disagree: “{sa}” [{na}] and “{sb}” [{nb}].")
        else:
            lines.append(f"These two policies disagree: the {ta} says “{sa}” [{na}]; the {tb} says “{sb}” [{nb}].")
    chunks = [chunk for c in conflicts for chunk in c["chunks"]]
    return " ".join(lines) + " " + _ask([owners.get(chunk, "") for chunk in chunks])


def note_disagreements(answer: Answer, pool: list[NodeWithScore], vectors: Mapping[str, np.ndarray]) -> Answer:
    """`answer` with its cited disagreements recorded (`conflicts`) and told after its text."""
    if answer.decision != "answer" or len(answer.citations) < 2:
        return answer
    texts = {n.node.node_id: n.node.get_content() for n in pool}
    conflicts = cited_disagreements(answer.citations, texts, vectors)
    if not conflicts:
        return answer
    owners = {n.node.node_id: str(n.node.metadata.get("owner", "") or "") for n in pool}
    answer.conflicts = conflicts
    answer.conflict_note = conflict_note(conflicts, owners)
    answer.text = f"{answer.text}\n\n{answer.conflict_note}"
    return answer
