"""Plain typed records passed between layers (DESIGN.md, "The Answer every layer passes up")."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Literal

# Whom an abstention points to when the nearest sections name no owner: no organisation's office
# names here (a document's own `owner` field names them).
ASK_WHEN_NO_OWNER = "the office responsible for this policy"

# "error" is only written to the query log, for a turn that failed (ui.service.WarrantService.chat).
Decision = Literal["answer", "abstain", "clarify", "memory", "out_of_scope", "error"]


@dataclass(frozen=True)
class Chunk:
    """One retrievable unit of a policy document, before it is indexed."""

    chunk_id: str
    doc_id: str
    title: str
    section: str
    section_numbers: str  # comma-separated, e.g. "4.1,4.2" when small sections were merged
    text: str
    version: str
    effective_date: str
    owner: str
    source: str  # path relative to the ingested folder
    position: int
    content_hash: str
    page: int = 0  # the page its text begins on, in a PDF; 0 where the source has no pages
    # "everyone", groups joined by commas ("finance,hr"), or "" for the document's current audience
    # (pipeline.ground.audience; a chunk added without one takes its document's, see ChunkIndex.add_nodes).
    audience: str = ""

    def embed_text(self) -> str:
        """What the embedding sees: the heading path carries topic words the body often omits."""
        return f"{self.title}. {self.section}.\n{self.text}"


@dataclass(frozen=True)
class Citation:
    n: int
    doc_id: str
    chunk_id: str
    title: str
    section: str
    quote: str
    source: str = ""
    version: str = ""
    # The chunk's sentences this citation's answer sentences rest on, one by one; `quote` joins them
    # for display. The evaluation contract lists each as its own quote (pipeline.evaluation.contract).
    quotes: tuple[str, ...] = ()

    def sentence_quotes(self) -> tuple[str, ...]:
        """Each cited sentence of the chunk, or the whole quote where they were not kept apart."""
        return self.quotes or ((self.quote,) if self.quote else ())


@dataclass(frozen=True)
class SupportScore:
    """σ = λ_sim·sim + λ_reader·reader + λ_coverage·coverage + λ_consistency·consistency, with the
    parts kept for display and tuning (pipeline.gate.support)."""

    sigma: float
    sim: float
    coverage: float
    consistency: float
    tau: float
    missing_terms: tuple[str, ...] = ()
    # The best chunk's cosine: what a plain similarity cutoff reads (the baseline σ is measured
    # against); sim itself is the best sentence's (pipeline.gate.support).
    best_chunk: float = 0.0
    # The reader's probability that the best candidate sentence answers the question
    # (pipeline.gate.reader); 0 where no reader read (an abstention before reading).
    reader: float = 0.0

    @property
    def passes(self) -> bool:
        return self.sigma >= self.tau


@dataclass(frozen=True)
class AnswerStyle:
    """How an answer is shaped. Comes from the user's preferences; never changes what is cited."""

    length: Literal["brief", "standard", "detailed"] = "standard"
    format: Literal["prose", "bullets"] = "prose"
    show_quotes: bool = True
    programme: str = ""


@dataclass
class Answer:
    text: str
    decision: Decision
    citations: list[Citation] = field(default_factory=list)
    support: SupportScore | None = None
    reason: str = ""
    timings_ms: dict[str, float] = field(default_factory=dict)
    policy_claim: dict | None = None
    query: str = ""
    rewritten_query: str = ""
    nearest_sections: list[dict] = field(default_factory=list)
    clarify_options: list[dict] = field(default_factory=list)
    # The answer's first line when it states the value, name, or yes/no asked (pipeline/answer/direct.py),
    # as it stands in `text`, with its [n] marker; "" when there is none.
    direct_answer: str = ""
    # Parts of a message of several questions that no evidence covers, as asked (pipeline/answer/parts.py).
    uncovered_parts: list[str] = field(default_factory=list)
    # Set only when an LLM wrote (or tried to write) the answer (pipeline/answer/generate.py): mode
    # "generated" or "extractive" (fallback), notice, error kind, removed sentences with reasons.
    generation: dict | None = None
    # Cited sentences of different chunks that state one thing with different facts
    # (pipeline/answer/conflicts.py): each {"n", "chunks", "titles", "sections", "sentences", "what"},
    # and the notice appended to `text` that tells the reader (not an answer sentence).
    conflicts: list[dict] = field(default_factory=list)
    conflict_note: str = ""

    def to_dict(self) -> dict:
        return asdict(self)
