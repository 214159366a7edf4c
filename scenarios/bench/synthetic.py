"""A deterministic synthetic corpus for scale benchmarks, built from the real policies' sentences.

Each synthetic chunk is a handful of sentences drawn from `data/policies` (any folder works), with
its numbers re-drawn and its names (offices, roles, programmes) swapped, under a title and section
of its own. Chunk lengths follow the real chunks' word counts, so embedding cost per chunk is
realistic. The same `seed` always gives the same chunks, ids and all.

The chunks are returned as `Chunk` records, to be indexed with `ChunkIndex.add_nodes` via
`pipeline.ingest.index.chunk_to_node` (no Markdown files are written: parsing is not what is measured).
At sizes where embedding every chunk with the model would take most of an hour on a 2-core CPU,
`perturbed_vector` gives each chunk a vector derived from real embeddings of its own sentences.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from pathlib import Path

from pipeline.ground.records import Chunk
from pipeline.ingest.chunking import chunk_document
from pipeline.ingest.documents import find_documents, read_document
from pipeline.language.text import split_sentences

_NUMBER = re.compile(r"\d+")
_NAMES = {
    "Dean": ("Dean", "Associate Dean", "Provost", "Director", "Registrar"),
    "Institute": ("Institute", "University", "College", "Academy", "School"),
    "B.Tech": ("B.Tech", "B.Sc", "B.Des", "BBA", "B.Arch"),
    "M.Tech": ("M.Tech", "M.Sc", "MBA", "M.Des", "M.Phil"),
    "Ph.D": ("Ph.D", "D.Phil", "DBA", "Ed.D"),
    "Head of the Department": ("Head of the Department", "Programme Chair", "Course Director"),
    "Controller of Examinations": ("Controller of Examinations", "Examinations Officer", "Assessment Registrar"),
}
_NAME_PATTERN = re.compile("|".join(re.escape(k) for k in sorted(_NAMES, key=len, reverse=True)))
_FACULTIES = (
    "Engineering",
    "Sciences",
    "Design",
    "Management",
    "Humanities",
    "Law",
    "Medicine",
    "Architecture",
    "Education",
    "Pharmacy",
    "Agriculture",
    "Computing",
)
_CAMPUSES = ("North", "South", "East", "West", "Central", "Riverside", "Hill", "Lake")


@dataclass(frozen=True)
class SourceMaterial:
    """What the generator draws from: real sentences, real chunk lengths, real titles and headings."""

    sentences: list[str]
    chunk_words: list[int]
    titles: list[str]
    sections: list[str]


def load_material(docs_dir: Path, min_words: int = 40, max_words: int = 320) -> SourceMaterial:
    sentences: list[str] = []
    lengths: list[int] = []
    titles: set[str] = set()
    sections: list[str] = []
    folder = Path(docs_dir).resolve()
    for path in find_documents(folder):
        doc = read_document(path, folder)
        titles.add(doc.title)
        for chunk in chunk_document(doc, min_words, max_words):
            lengths.append(len(chunk.text.split()))
            sections.append(re.sub(r"^[\d.]+\s*", "", chunk.section) or "General")
            sentences.extend(s for s in split_sentences(chunk.text) if len(s.split()) >= 5 and not s.startswith("#"))
    if not sentences:
        raise ValueError(f"{folder} has no sentences to build a synthetic corpus from")
    return SourceMaterial(sentences, lengths, sorted(titles), sections)


def _vary_numbers(sentence: str, rng: random.Random) -> str:
    def redraw(m: re.Match) -> str:
        digits = len(m.group(0))
        low = 1 if digits == 1 else 10 ** (digits - 1)
        return str(rng.randint(low, 10**digits - 1))

    return _NUMBER.sub(redraw, sentence)


def _vary_names(sentence: str, rng: random.Random) -> str:
    return _NAME_PATTERN.sub(lambda m: rng.choice(_NAMES[m.group(0)]), sentence)


def synthetic_chunks(count: int, material: SourceMaterial, seed: int = 8, start: int = 0) -> list[Chunk]:
    """`count` chunks numbered from `start`; chunk i is the same for a given seed whatever `start` is."""
    return [chunk for chunk, _sources in synthetic_chunks_with_sources(count, material, seed, start)]


def synthetic_chunks_with_sources(
    count: int, material: SourceMaterial, seed: int = 8, start: int = 0
) -> list[tuple[Chunk, list[int]]]:
    """Like `synthetic_chunks`, each with the indices (into `material.sentences`) of its sentences."""
    chunks = []
    for i in range(start, start + count):
        rng = random.Random(f"{seed}:{i}")
        target = rng.choice(material.chunk_words)
        body: list[str] = []
        sources: list[int] = []
        words = 0
        while words < target:
            picked = rng.randrange(len(material.sentences))
            sentence = _vary_names(_vary_numbers(material.sentences[picked], rng), rng)
            body.append(sentence)
            sources.append(picked)
            words += len(sentence.split())
        text = " ".join(body)
        doc_number = i // 40  # ~40 chunks per synthetic document
        doc_rng = random.Random(f"{seed}:doc:{doc_number}")
        title = (
            f"{doc_rng.choice(material.titles)} - Faculty of {doc_rng.choice(_FACULTIES)}, "
            f"{doc_rng.choice(_CAMPUSES)} Campus"
        )
        section_no = f"{i % 40 // 5 + 1}.{i % 5 + 1}"
        section = f"{section_no} {rng.choice(material.sections)}"
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        doc_id = f"synthetic-{doc_number:05d}"
        chunks.append(
            (
                Chunk(
                    chunk_id=f"{doc_id}::{i:06d}::{digest}",
                    doc_id=doc_id,
                    title=title,
                    section=section,
                    section_numbers=section_no,
                    text=text,
                    version="1.0",
                    effective_date="2026-07-01",
                    owner=f"Office of the Dean, Faculty of {doc_rng.choice(_FACULTIES)}",
                    source=f"synthetic/{doc_id}.md",
                    position=i % 40,
                    content_hash=digest,
                ),
                sources,
            )
        )
    return chunks


def perturbed_vector(
    sources: list[int], sentence_vectors, index: int, seed: int = 8, noise: float = 0.015
) -> list[float]:
    """A stand-in embedding for synthetic chunk `index`, without running the model on it.

    The mean of the real MiniLM embeddings of the sentences the chunk was built from, plus seeded
    Gaussian noise (`noise` per dimension: cosine to the mean about 0.96), renormalised. Used
    only to reach 100k chunks for latency, size and memory measurements: ingest speed is always
    measured with real embeddings.
    """
    import numpy as np

    mean = np.asarray(sentence_vectors)[sources].mean(axis=0)
    mean = mean / (np.linalg.norm(mean) or 1.0)
    rng = np.random.default_rng([seed, index])
    vector = mean + rng.normal(0.0, noise, size=mean.shape)
    return (vector / np.linalg.norm(vector)).astype(float).tolist()
