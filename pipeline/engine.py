"""One policy question in, one `Answer` out: retrieve → support gate → synthesise → verify → log.

The σ decision lives here rather than only in a postprocessor that empties the node list, because
an empty list makes LlamaIndex say "Empty Response"; an abstention must say what was searched and
why it stops.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple, TypedDict

import numpy as np
from llama_index.core.schema import NodeWithScore, QueryBundle

from pipeline.answer.conflicts import note_disagreements
from pipeline.answer.direct import (
    arrange,
    cited_sentences,
    direct_answer,
    render_with_direct_answer,
)
from pipeline.answer.generate import build_generator
from pipeline.answer.parts import with_uncovered_parts
from pipeline.answer.synthesis import ExtractiveSynthesizer
from pipeline.answer.table_rows import read_rows
from pipeline.answer.verify import verify
from pipeline.gate.reader import Reader, load_reader
from pipeline.gate.support import GateResult, SupportPostprocessor
from pipeline.ground.audience import PUBLIC, RESTRICTED_KEY, Audience
from pipeline.ground.config import Config
from pipeline.ground.freshness import MISSING, FileStamp, file_stamp
from pipeline.ground.querylog import append_query_log
from pipeline.ground.records import ASK_WHEN_NO_OWNER, Answer, AnswerStyle, SupportScore
from pipeline.ingest.index import ChunkIndex, IngestReport
from pipeline.ingest.sentence_vectors import sentence_cosines
from pipeline.ingest.term_stats import TermStats
from pipeline.language import glossary
from pipeline.language.instructions import action_refusal, instructions_only, is_action_request, set_aside_instructions
from pipeline.language.question import Question, analyse_question
from pipeline.language.question_parts import QuestionPart
from pipeline.language.repetition import read_once
from pipeline.language.spelling import Correction, SpellingCorrector
from pipeline.language.text import canonical_terms
from pipeline.retrieve.chroma_client import open_chroma
from pipeline.retrieve.hybrid import fuse

log = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 2000


def please_ask(words: glossary.Glossary | None = None) -> str:
    """The reply to an empty message, naming the glossary's `subject` (the active one by default)."""
    return f"Please type a question about {(words or glossary.active()).subject}."


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 2)


def _nearest(nodes: list[NodeWithScore], limit: int = 3) -> list[dict]:
    seen, out = set(), []
    for n in nodes:
        meta = n.node.metadata
        key = (meta.get("doc_id"), meta.get("section"))
        if key in seen:
            continue
        seen.add(key)
        out.append(
            {
                "doc_id": meta.get("doc_id", ""),
                "title": meta.get("title", ""),
                "section": meta.get("section", ""),
                "owner": meta.get("owner", ""),
                "chunk_id": n.node.node_id,
                "similarity": round(n.score or 0.0, 3),
            }
        )
        if len(out) == limit:
            break
    return out


class _Shared(TypedDict):
    """The fields every reply to one question carries, passed to `Answer` as keywords."""

    query: str
    rewritten_query: str
    support: SupportScore
    nearest_sections: list[dict]


class _PartDecision(NamedTuple):
    """One part of a message of several questions: covered by any evidence; its own evidence
    when that passes the gate by itself, with that support."""

    covered: bool
    evidence: list[NodeWithScore]
    support: SupportScore | None


_PART_SEARCHES = ThreadPoolExecutor(max_workers=2, thread_name_prefix="part-search")


class AnswerEngine:
    """The cited-or-silent engine over one state directory's index."""

    def __init__(self, config: Config, embed_model=None, index: ChunkIndex | None = None) -> None:
        if embed_model is None:
            from pipeline.ingest.embedding import MiniLMEmbedding

            embed_model = MiniLMEmbedding()
        self.config = config
        glossary.use(glossary.Glossary.load(config.docs_dir))  # the documents' own words, or none
        self.embed_model = embed_model
        if index is None:
            index = ChunkIndex(
                config.chroma_dir, embed_model, client=open_chroma(config), collection=config.chroma_collection
            )
        self.index = index
        self.stats = TermStats()
        self._stats_stamp: FileStamp = MISSING
        self._load_or_rebuild_stats()
        self.reader: Reader = load_reader(config.reader_model, config.reader_precision)
        self.postprocessor = SupportPostprocessor(
            self.stats,
            self.reader,
            self.index.sentence_vectors,
            lambda_sim=config.lambda_sim,
            lambda_reader=config.lambda_reader,
            lambda_coverage=config.lambda_coverage,
            lambda_consistency=config.lambda_consistency,
            tau=config.tau,
            rules=frozenset(config.rules),
        )
        self.synthesizer = ExtractiveSynthesizer(self.stats)
        # Optional: an LLM rewrites gated answers, every sentence verified (None: extractive only).
        self.generator = build_generator(config, self.reader)
        self.top_k = config.top_k
        self.fusion_pool = config.fusion_pool
        self._speller: tuple[object, SpellingCorrector] | None = None

    # -- configuration that an admin may change at run time -------------------------------------
    @property
    def tau(self) -> float:
        return self.postprocessor.tau

    @tau.setter
    def tau(self, value: float) -> None:
        if not 0.0 <= value <= 1.0:
            raise ValueError("τ must be between 0 and 1")
        self.postprocessor.tau = float(value)

    # -- corpus ---------------------------------------------------------------------------------
    def ingest(self, folder: Path | None = None, progress: Callable | None = None) -> IngestReport:
        report = self.index.ingest_folder(
            folder or self.config.docs_dir, self.config.chunk_min_words, self.config.chunk_max_words, progress
        )
        self.refresh()
        return report

    def refresh(self) -> None:
        """Re-read term statistics after the active chunks changed (ingest, approved ticket, an
        audience changed). They count only the chunks everyone may read: σ (coverage's idf), BM25
        and the synthesiser weigh a word by them, and σ is shown to every asker, so a word that
        only a restricted document holds must weigh the same as a word no document holds."""
        fingerprint = self._index_fingerprint()
        self.stats.rebuild(self.index.active_texts(PUBLIC))
        self.stats.save(self.term_stats_path, fingerprint)
        self._stats_stamp = self._term_stats_stamp()

    @property
    def term_stats_path(self) -> Path:
        return self.config.home / "term_stats.json"

    def _index_fingerprint(self) -> dict:
        """Counts plus a digest of the active chunk ids: reading ids only is far cheaper than the
        texts, and it changes when a chunk is replaced even if the counts do not."""
        ids = sorted(self.index.collection.get(where={"status": "active"}, include=[])["ids"])
        digest = hashlib.sha256("\n".join(ids).encode("utf-8")).hexdigest()
        restricted = self.index.collection.get(where={RESTRICTED_KEY: True}, include=[])["ids"]
        return {
            "active": len(ids),
            "total": self.index.count(),
            "active_ids_sha256": digest,
            "restricted_ids_sha256": hashlib.sha256("\n".join(sorted(restricted)).encode("utf-8")).hexdigest(),
        }

    def _load_or_rebuild_stats(self) -> None:
        """Start from the stored counts when they match this index; otherwise count and store."""
        if self.stats.load(self.term_stats_path, self._index_fingerprint()):
            self._stats_stamp = self._term_stats_stamp()
        else:
            self.refresh()

    def _term_stats_stamp(self) -> FileStamp:
        return file_stamp(self.term_stats_path)

    def follow_other_processes(self) -> None:
        """Adopt the term statistics another process wrote after it changed the shared index (an
        approved ticket, an ingest): one stat() per question, a read only when the file changed.

        Chunks and sentence vectors need nothing here: with a Chroma server every search asks the
        server, and sentence vectors are read from SQLite on each lookup, so both see other
        processes' writes. (The embedded Chroma store does not: see `pipeline.retrieve.chroma_client`.)
        """
        stamp = self._term_stats_stamp()
        if stamp == self._stats_stamp:
            return
        self._stats_stamp = stamp
        if not self.stats.load(self.term_stats_path, self._index_fingerprint()):
            log.warning(
                "term statistics in %s describe another index than this process sees; kept the current counts",
                self.term_stats_path,
            )

    # -- asking ---------------------------------------------------------------------------------
    def correct_spelling(self, text: str) -> Correction:
        """`text` with the words the corpus does not know corrected to ones it does
        (pipeline.language.spelling), over the active chunks' current vocabulary."""
        words = self.stats.words
        speller = self._speller
        if speller is None or speller[0] is not words:  # the vocabulary changed: a new corrector
            speller = (words, SpellingCorrector(words, self.stats.knows))
            self._speller = speller
        return speller[1].correct(text)

    def retrieve(self, query: str, audience: Audience = PUBLIC) -> tuple[list[NodeWithScore], dict[str, float]]:
        nodes, timings, _ = self._retrieve(query, audience=audience)
        return nodes, timings

    def _retrieve(
        self,
        query: str,
        embedding: list[float] | None = None,
        terms: Sequence[str] | None = None,
        audience: Audience = PUBLIC,
        exclude: frozenset[str] = frozenset(),
        within_doc: str = "",
    ) -> tuple[list[NodeWithScore], dict[str, float], list[float]]:
        """The `top_k` chunks `audience` may read for `query`: the `fusion_pool` closest by cosine
        (the audience filtered in the vector store query), re-ordered by fusing that rank with BM25
        over the query's `terms` (pipeline.retrieve.hybrid); dense only when the pool is 0. Chunks
        in `exclude` are left out (a measurement's withheld answer); `within_doc`: only that
        document's chunks (a clarification's chosen option)."""
        timings: dict[str, float] = {}
        if embedding is None:
            t = time.perf_counter()
            embedding = self.embed_model.get_query_embedding(query)
            timings["embed"] = _ms(t)
        t = time.perf_counter()
        pool = max(self.top_k, self.fusion_pool) + len(exclude)
        retriever = (
            self.index.filtered_retriever(pool, audience, within_doc)
            if within_doc
            else self.index.retriever(pool, audience)
        )
        nodes = retriever.retrieve(QueryBundle(query_str=query, embedding=embedding))
        nodes = [n for n in nodes if n.node.node_id not in exclude]
        if self.fusion_pool:
            query_terms = canonical_terms(query) if terms is None else terms
            nodes = fuse(nodes, query_terms, self.stats, self.top_k)
        else:
            nodes = nodes[: self.top_k]
        timings["retrieve"] = _ms(t)
        return nodes, timings, embedding

    def judge(self, question: str, exclude: frozenset[str] = frozenset()) -> GateResult:
        """The gate's verdict on `question` (retrieval, the reader, σ, the decision), without writing
        an answer; chunks in `exclude` are withheld from retrieval. For measurements and checks
        (calibration, a change's post-update check)."""
        asked = analyse_question(read_once(question.strip()).text)
        nodes, _, embedding = self._retrieve(asked.text, terms=asked.terms, exclude=exclude)
        return self.postprocessor.gate(asked, nodes, embedding)

    def ask(
        self,
        question: str,
        style: AnswerStyle | None = None,
        rewritten: str = "",
        actor: str = "",
        session: str = "",
        log: bool = True,
        gated: bool = True,
        on_token: Callable[[str], None] | None = None,
        audience: Audience = PUBLIC,
        within_doc: str = "",
    ) -> Answer:
        """Answer `question` (retrieving with `rewritten` when a follow-up was made self-contained).

        `within_doc`: search that document only (a reply that picked an option of a clarifying
        question, pipeline/answer/clarify.py).

        `gated=False` is the standard-RAG baseline used in evaluations: same retrieval and
        synthesiser, no support gate and no verifier, so it always answers when anything is found.
        `on_token(text so far)` streams an LLM-written answer while it is written (pipeline/answer/generate.py).
        `audience`: whose question it is; only documents they may read are searched (default: the
        documents everyone may read; `EVERYTHING` for the system's own checks).
        With `log`, every call writes one query-log line, refusals and declined requests included.
        """
        started = time.perf_counter()
        self.follow_other_processes()
        style = style or AnswerStyle()
        question = (question or "").strip()
        problem = self._refuse_input(question)
        if problem:
            answer = Answer(text=problem, decision="abstain", reason="input refused", query=question[:200])
            return self._finish(answer, {}, started, log, actor, session, kind="refused")
        once = read_once(question)  # a passage pasted twenty times is asked once
        question = once.text
        rewritten = read_once(rewritten).text
        # The message is analysed once (pipeline.language.question); every step below reads that record.
        # A misspelt word is searched as the corpus writes it ("Searched for: …" shows it).
        spelling = self.correct_spelling((rewritten or question).strip())
        message = analyse_question(spelling.text)
        if is_action_request(message.sentences if message.text == question else question):
            answer = self._declined(question, action_refusal(), "a request to act, not a question")
            return self._finish(answer, {}, started, log, actor, session, kind="declined")
        query, set_aside = set_aside_instructions(message.sentences)
        if not query:
            answer = self._declined(question, instructions_only(), "instructions only, no question")
            return self._finish(answer, {}, started, log, actor, session, kind="declined")
        asked = message if query == message.text else analyse_question(query)
        # A two-part question's parts are embedded with it, in one pass (pipeline.language.question_parts).
        parts = asked.parts
        t = time.perf_counter()
        embeddings = self.embed_model.query_embeddings([query, *(p.search for p in parts)])
        embed_ms = _ms(t)
        nodes, timings, embedding = self._retrieve(query, embeddings[0], asked.terms, audience, within_doc=within_doc)
        timings = {"embed": embed_ms, **timings}
        t = time.perf_counter()
        gate = (
            self.postprocessor.gate(asked, nodes, embedding)
            if gated
            else self.postprocessor.ungated(asked, nodes, embedding)
        )
        timings["support"] = _ms(t)
        searches = list(zip(parts, embeddings[1:], strict=False))
        answer = self._compose(
            question,
            asked,
            gate,
            nodes,
            style,
            timings,
            embedding,
            searches,
            gated=gated,
            on_token=on_token,
            audience=audience,
        )
        if set_aside:
            answer.reason += f"; set aside {len(set_aside)} instruction sentence(s) in the message"
        if spelling.changed:
            answer.reason += f"; spelling corrected: {spelling.describe()}"
        if once.repeats:
            answer.reason += f"; read a repeated passage once ({once.repeats} repeat(s) left out)"
        return self._finish(answer, timings, started, log, actor, session)

    def _finish(
        self,
        answer: Answer,
        timings: dict[str, float],
        started: float,
        log: bool,
        actor: str,
        session: str,
        kind: str = "policy",
    ) -> Answer:
        """Attach the timings, then write the query-log line, so the line carries them."""
        timings["total"] = _ms(started)
        answer.timings_ms = timings
        if log:
            t = time.perf_counter()
            append_query_log(self.config.query_log_path, answer, actor=actor, session=session, kind=kind)
            timings["log"] = _ms(t)
        return answer

    @staticmethod
    def _declined(question: str, text: str, reason: str) -> Answer:
        return Answer(text=text, decision="abstain", reason=reason, query=question[:200])

    @staticmethod
    def _refuse_input(question: str) -> str:
        if not question:
            return please_ask()
        if len(question) > MAX_QUESTION_CHARS:
            return (
                f"That message is {len(question):,} characters long; please ask in under "
                f"{MAX_QUESTION_CHARS:,} characters, one question at a time."
            )
        if "\x00" in question:
            return "That message contains binary data; please type your question as plain text."
        return ""

    def _compose(
        self,
        question: str,
        asked: Question,
        gate: GateResult,
        nodes: list[NodeWithScore],
        style: AnswerStyle,
        timings: dict[str, float],
        embedding: list[float],
        searches: list[tuple[QuestionPart, list[float]]],
        gated: bool = True,
        on_token: Callable[[str], None] | None = None,
        audience: Audience = PUBLIC,
    ) -> Answer:
        query = asked.text
        common: _Shared = {
            "query": question,
            "rewritten_query": query if query != question else "",
            "support": gate.support,
            "nearest_sections": _nearest(nodes),
        }
        if gate.decision == "clarify":
            options = _nearest(list(gate.options) or nodes, limit=3)
            return Answer(
                text=self.clarify_text(options),
                decision="clarify",
                reason=gate.reason,
                clarify_options=options,
                **common,
            )
        t = time.perf_counter()
        # The parts' searches run side by side; in a large index that pays (measured at 14k
        # chunks: 19 → 14 ms for two parts; no change on the policies alone).
        decided = list(
            _PART_SEARCHES.map(lambda s: self._part_evidence(s[0].search, s[1], gated, nodes, audience), searches)
        )
        # A message of several questions that fails as a whole (one part the documents do not
        # cover drags σ down) is answered for the parts whose own evidence passes σ ≥ τ.
        passing = [d.support for d in decided if d.evidence and d.support is not None]
        if gate.decision == "abstain" and not passing:
            return Answer(
                text=self.abstain_text(common["nearest_sections"]), decision="abstain", reason=gate.reason, **common
            )
        if gate.decision == "abstain":
            common["support"] = min(passing, key=lambda support: support.sigma)
            gate = GateResult(
                decision="answer",
                support=gate.support,
                evidence=gate.evidence,
                reason=f"{gate.reason} for the whole message; its parts that pass by themselves are answered",
                readings=gate.readings,
            )
        # σ is judged on the gate's evidence; the sentences may come from a slightly wider pool of
        # the retrieved chunks, ranked by how well each sentence answers the question.
        pool = self.postprocessor.synthesis_pool(nodes)
        for decision in decided:
            known = {n.node.node_id for n in pool}
            pool += [n for n in decision.evidence if n.node.node_id not in known]
        # A part neither its own evidence nor the message's covers is named, not answered.
        uncovered = [part.asked for (part, _), d in zip(searches, decided, strict=True) if not d.covered]
        searches = [s for s, d in zip(searches, decided, strict=True) if d.covered]
        if searches:
            timings["parts"] = _ms(t)
            t = time.perf_counter()
        vectors = self._sentence_vectors(pool)
        similarity = sentence_cosines(vectors, embedding)
        parts = [(part.focus, sentence_cosines(vectors, e)) for part, e in searches]
        sentences = self.synthesizer.select(asked, pool, style, similarity, parts, list(gate.readings))
        timings["synthesise"] = _ms(t)
        t = time.perf_counter()
        texts = {n.node.node_id: n.node.get_content() for n in pool}
        verdicts = verify(sentences, texts)
        kept = [v.sentence for v in verdicts if v.supported or not gated]
        timings["verify"] = _ms(t)
        if not kept:
            return Answer(
                text=self.abstain_text(common["nearest_sections"]),
                decision="abstain",
                reason="no sentence of the evidence could be verified against its source",
                **common,
            )
        dropped = len(verdicts) - len(kept)
        reason = gate.reason + (f"; {dropped} unsupported sentence(s) dropped" if dropped else "")
        # A table row reads as a row; citations keep the chunk's own words.
        kept, as_written = read_rows(kept, texts) if gated else (kept, list)
        # The first line states what was asked when a sentence settles it; checked like the rest.
        headings = {
            n.node.node_id: f"{n.node.metadata.get('title', '')}. {n.node.metadata.get('section', '')}" for n in pool
        }
        direct = direct_answer(asked, kept, headings=headings) if gated else None
        if direct is not None and not verify([direct.as_cited()], texts)[0].supported:
            direct = None
        direct, shown = arrange(direct, kept, style)
        answer = Answer(
            text=render_with_direct_answer(direct, shown, style, self.synthesizer.render),
            decision="answer",
            citations=self.synthesizer.citations(as_written(cited_sentences(direct, shown)), pool),
            reason=reason,
            direct_answer=direct.line if direct else "",
            **common,
        )
        if gated and self.generator is not None:  # the LLM writes only after the gate said answer
            answer = self.generator.rewrite(
                query,
                answer,
                pool,
                style,
                on_token,
                timings,
                abstain=lambda reason: Answer(
                    text=self.abstain_text(common["nearest_sections"]), decision="abstain", reason=reason, **common
                ),
                parts=[part.search for part, _ in searches],
            )
        answer = note_disagreements(answer, pool, vectors)  # cited sentences that disagree are told
        if uncovered:
            answer.text = with_uncovered_parts(answer.text, uncovered)
            answer.uncovered_parts = uncovered
            answer.reason += f"; {len(uncovered)} part(s) of the message not covered"
        return answer

    def _part_evidence(
        self,
        part: str,
        embedding: list[float],
        gated: bool,
        message_nodes: list[NodeWithScore],
        audience: Audience = PUBLIC,
    ) -> _PartDecision:
        """Whether one part of a message of several questions is covered, and the chunks that may
        add sentences for it, retrieved with the part's own embedding (which also ranks the part's
        sentences; a separate embedding of the part's own words ranked them no better on dev or
        test). Gated, they must pass σ ≥ τ for the part by themselves; otherwise the part is
        answered from the whole message's evidence when that passes for it ("how much will it cost
        me?" says little alone), or not covered."""
        nodes, _, _ = self._retrieve(part, embedding, audience=audience)
        if not gated:
            return _PartDecision(True, self.postprocessor.ungated(part, nodes, embedding).evidence, None)
        gate = self.postprocessor.gate(part, nodes, embedding)
        if gate.decision == "answer":
            return _PartDecision(True, gate.evidence, gate.support)
        if gate.decision == "clarify":
            return _PartDecision(True, [], None)
        return _PartDecision(self.postprocessor.gate(part, message_nodes, embedding).decision != "abstain", [], None)

    def _sentence_vectors(self, pool: list[NodeWithScore]) -> dict[str, np.ndarray]:
        return self.index.sentence_vectors.get([(n.node.node_id, n.node.get_content()) for n in pool])

    @staticmethod
    def abstain_text(nearest: list[dict]) -> str:
        text = "The policies I can search do not cover this, so I won't guess."
        if nearest:
            looked = "; ".join(f"{n['title']}, {n['section']}" for n in nearest)
            text += f" I looked at: {looked}."
            owner = next((n["owner"] for n in nearest if n.get("owner")), "")
            if owner:
                text += f" For an authoritative answer, ask the {owner}."
            else:
                text += f" For an authoritative answer, ask {ASK_WHEN_NO_OWNER}."
        return text

    @staticmethod
    def clarify_text(options: list[dict]) -> str:
        if not options:
            return "Could you say a little more about what you are asking?"
        listed = "; or ".join(f"{o['title']} ({o['section']})" for o in options)
        return f"Your question could refer to more than one policy. Do you mean: {listed}?"
