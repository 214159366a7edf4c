"""What the query log says: decision rates over time, σ against τ, latency, what gets cited, claims,
the open conflicts between documents (seen in answers, or filed when a document was added), the
operator's numbers (errors, latency by stage, abstention reasons: governance.turn_stats), and
the knowledge gaps - abstained questions grouped by topic, each with the nearest section, and
marked resolved once today's library answers them (governance.gap_resolution).

Reviewers see questions, never who asked them (the log keeps only a hashed actor, which nothing
here returns), with obvious personal data taken out (`governance.personal_data`; the chat tells
users that unanswered questions are read). The CSV export writes every cell so that a spreadsheet
shows it as text, never runs it as a formula. Gaps are MiniLM embeddings clustered with
scikit-learn's agglomerative clustering (cosine distance, average linkage, a distance threshold
rather than a number of groups: the number of topics is what we want to learn).

A reviewer sees only what their audience allows (pipeline.ground.audience): cited sections of
documents they may not read are not counted for them, a gap question whose nearest sections they
may not read is left out, so is a conflict with a side they may not read, and nearest sections and
resolutions are looked up in what they may read. A chunk no longer in the index (removed by a
later ingest) hides nothing: none of its text is shown.
"""

from __future__ import annotations

import csv
import json
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from llama_index.core.schema import QueryBundle

from governance.gap_resolution import GapResolver
from governance.personal_data import redact_personal
from governance.turn_stats import turn_stats
from pipeline.ground.audience import EVERYTHING, Audience

GAP_DISTANCE = 0.55  # cosine distance under which two abstained questions share a topic
CSV_COLUMNS = ("group_id", "group_size", "question", "sigma", "nearest_section")


@dataclass(frozen=True)
class GapQuestion:
    question: str
    sigma: float | None
    asked_at: str
    nearest_section: str  # "doc_id §section" of the closest active chunk
    resolved_by: str = ""  # "doc_id §section" that answers it today; "" while the gap is open


@dataclass
class GapGroup:
    group_id: int
    questions: list[GapQuestion] = field(default_factory=list)
    nearest_section: str = ""  # closest to the group's centre

    @property
    def size(self) -> int:
        return len(self.questions)

    @property
    def open(self) -> int:
        """Questions of the group that today's library still does not answer."""
        return sum(1 for q in self.questions if not q.resolved_by)

    @property
    def status(self) -> str:
        if not self.open:
            return "resolved"
        return "open" if self.open == self.size else f"{self.size - self.open} of {self.size} resolved"


def read_log(path: Path, retention_days: int = 0) -> list[dict]:
    """The query log's records (malformed lines skipped), newer than `retention_days` if > 0."""
    path = Path(path)
    if not path.exists():
        return []
    cutoff = (
        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - retention_days * 86400))
        if retention_days > 0
        else ""
    )
    records = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict) and str(record.get("ts", "")) >= cutoff:
                records.append(record)
    return records


def prune_log(path: Path, retention_days: int) -> int:
    """Drop records older than `retention_days` (0 keeps everything); returns how many were dropped."""
    from pipeline.ground.querylog import rewrite_query_log

    if retention_days <= 0 or not Path(path).exists():
        return 0
    cutoff = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - retention_days * 86400))
    return rewrite_query_log(path, lambda record: str(record.get("ts", "")) >= cutoff)


# -- the overview ---------------------------------------------------------------------------------
def overview(records: list[dict], section_of: dict[str, str] | None = None) -> dict:
    """Plain numbers for the plots: per-day decision counts, σ values and τ, latency percentiles,
    the most-cited documents and sections."""
    by_day: dict[str, Counter] = defaultdict(Counter)
    sigmas, taus, latencies = [], [], []
    docs: Counter[str] = Counter()
    sections: Counter[str] = Counter()
    for r in records:
        by_day[str(r.get("ts", ""))[:10]][str(r.get("decision", ""))] += 1
        if isinstance(r.get("sigma"), (int, float)):
            sigmas.append(float(r["sigma"]))
        if isinstance(r.get("tau"), (int, float)):
            taus.append(float(r["tau"]))
        total = (r.get("timings_ms") or {}).get("total")
        if isinstance(total, (int, float)):
            latencies.append(float(total))
        for chunk_id in r.get("sources") or []:
            doc, _, rest = str(chunk_id).partition("::")
            docs[doc] += 1
            sections[(section_of or {}).get(chunk_id) or f"{doc} §{rest.partition('::')[0]}"] += 1
    return {
        "days": sorted(by_day),
        "by_day": {d: dict(c) for d, c in by_day.items()},
        "sigmas": sigmas,
        "tau": taus[-1] if taus else None,
        "latency_p50": float(np.percentile(latencies, 50)) if latencies else None,
        "latency_p95": float(np.percentile(latencies, 95)) if latencies else None,
        "top_documents": docs.most_common(10),
        "top_sections": sections.most_common(10),
        "turns": len(records),
    }


# -- knowledge gaps -------------------------------------------------------------------------------
def abstained(records: list[dict]) -> list[dict]:
    """Abstained turns with their question (a forgotten user's question is blank and left out)."""
    return [r for r in records if r.get("decision") == "abstain" and str(r.get("query") or "").strip()]


def unreadable_chunks(index, records: list[dict], audience: Audience) -> set[str]:
    """The chunk ids named by `records` (cited or nearest) that `audience` may not read."""
    if audience.everything:
        return set()
    ids = sorted({str(c) for r in records for key in ("sources", "nearest") for c in (r.get(key) or [])})
    if not ids:
        return set()
    return {n.node_id for n in index.get_nodes(ids) if not audience.can_read(n.metadata)}


def visible_to(index, records: list[dict], audience: Audience) -> list[dict]:
    """`records` as a reviewer with `audience` may see them: unreadable citations dropped, and turns
    whose nearest sections they may not read left out."""
    hidden = unreadable_chunks(index, records, audience)
    if not hidden:
        return records
    out = []
    for r in records:
        if hidden & {str(c) for c in r.get("nearest") or []}:
            continue
        out.append({**r, "sources": [c for c in r.get("sources") or [] if str(c) not in hidden]})
    return out


def cluster(vectors: np.ndarray, distance: float = GAP_DISTANCE) -> list[int]:
    """A group label per (normalised) vector."""
    if len(vectors) < 2:
        return [0] * len(vectors)
    from sklearn.cluster import AgglomerativeClustering

    model = AgglomerativeClustering(n_clusters=None, metric="cosine", linkage="average", distance_threshold=distance)
    return [int(label) for label in model.fit_predict(vectors)]


def _section_label(node) -> str:
    meta = node.metadata
    return f"{meta.get('doc_id', '')} §{meta.get('section', '') or meta.get('title', '')}"


def knowledge_gaps(
    log_path: Path,
    index,
    retention_days: int = 0,
    audience: Audience = EVERYTHING,
    resolver: GapResolver | None = None,
) -> list[GapGroup]:
    """Abstained questions grouped by topic, as a reviewer with `audience` may see them: groups
    with open questions first, largest first (then by their first question); with a `resolver`,
    each question re-asked against today's library and marked resolved when it is answered."""
    turns = abstained(visible_to(index, read_log(log_path, retention_days), audience))
    if not turns:
        return []
    asked = [str(r["query"]).strip() for r in turns]  # re-asked as the user asked them
    questions = [redact_personal(q) for q in asked]  # as reviewers see them
    vectors = np.asarray(index.embed_texts(questions), dtype=np.float32)
    labels = cluster(vectors)
    retriever = index.retriever(1, audience)
    nearest = []
    for question, vector in zip(questions, vectors, strict=False):
        hits = retriever.retrieve(QueryBundle(query_str=question, embedding=vector.tolist()))
        nearest.append(_section_label(hits[0].node) if hits else "")
    answered = {q: resolver.resolved_by(q, audience) for q in dict.fromkeys(asked)} if resolver else {}
    resolved = [answered.get(q, "") for q in asked]
    members: dict[int, list[int]] = defaultdict(list)
    for i, label in enumerate(labels):
        members[label].append(i)

    def still_open(idx: list[int]) -> int:
        return sum(1 for i in idx if not resolved[i])

    ordered = sorted(
        members.values(), key=lambda idx: (still_open(idx) == 0, -still_open(idx), -len(idx), questions[idx[0]].lower())
    )
    groups = []
    for number, idx in enumerate(ordered, start=1):
        group = GapGroup(
            number,
            [
                GapQuestion(
                    questions[i],
                    turns[i].get("sigma"),
                    str(turns[i].get("ts", "")),
                    nearest[i],
                    resolved[i],
                )
                for i in idx
            ],
        )
        centre = vectors[idx].mean(axis=0)
        centre /= max(float(np.linalg.norm(centre)), 1e-9)
        hits = retriever.retrieve(QueryBundle(query_str=questions[idx[0]], embedding=centre.tolist()))
        group.nearest_section = _section_label(hits[0].node) if hits else ""
        groups.append(group)
    return groups


def gap_rows(groups: list[GapGroup]) -> list[dict]:
    """One row per open question (what is still to write; a resolved one is left out): group id,
    the group's open questions, the question, σ, the nearest section."""
    return [
        {
            "group_id": g.group_id,
            "group_size": g.open,
            "question": q.question,
            "sigma": "" if q.sigma is None else round(float(q.sigma), 3),
            "nearest_section": q.nearest_section,
        }
        for g in groups
        for q in g.questions
        if not q.resolved_by
    ]


# A cell a spreadsheet would read as a formula: =, +, - or @ first (after any spaces), or a tab or
# carriage return (OWASP, "CSV injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_text(value: object) -> object:
    """`value` as a spreadsheet shows it as text: a formula-like string gets a leading apostrophe."""
    if isinstance(value, str) and value.lstrip(" ").startswith(_FORMULA_START):
        return "'" + value
    return value


def write_gaps_csv(groups: list[GapGroup], path: Path) -> int:
    """One row per question (`gap_rows`); every text cell safe to open in a spreadsheet."""
    rows = [{k: spreadsheet_text(v) for k, v in row.items()} for row in gap_rows(groups)]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return len(rows)


def claims_summary(tickets) -> dict[str, int]:
    """Claims filed, by status (open, approved, rejected, failed)."""
    return dict(Counter(t.status for t in tickets))


def open_conflicts(records: list[dict], index, tickets, audience: Audience = EVERYTHING) -> list[dict]:
    """Conflicts still standing: pairs of active chunks that disagreed in answers (the query log's
    `conflicts`) or that a conflict ticket still open names; the most seen first. A pair with a side
    `audience` may not read is left out."""
    seen: dict[str, dict] = {}
    for r in records:
        for c in r.get("conflicts") or []:
            chunks = [str(x) for x in c.get("chunks") or []]
            if len(chunks) != 2:
                continue
            key = "|".join(sorted(chunks))
            row = seen.setdefault(
                key,
                {
                    "chunks": chunks,
                    "sentences": list(c.get("sentences") or []),
                    "what": c.get("what", ""),
                    "seen_in_answers": 0,
                    "last_seen": "",
                    "ticket": "",
                },
            )
            row["seen_in_answers"] += 1
            row["last_seen"] = max(row["last_seen"], str(r.get("ts", "")))
    for t in tickets.list("open"):
        if t.kind != "conflict" or not t.conflict:
            continue
        key = t.conflict.get("key") or "|".join(sorted(t.conflict.get("chunks", [])))
        row = seen.setdefault(
            key,
            {
                "chunks": list(t.conflict.get("chunks", [])),
                "sentences": list(t.conflict.get("sentences", [])),
                "what": t.conflict.get("what", ""),
                "seen_in_answers": 0,
                "last_seen": "",
                "ticket": "",
            },
        )
        row["ticket"] = t.ticket_id
    if not seen:
        return []
    ids = sorted({c for row in seen.values() for c in row["chunks"]})
    nodes = {n.node_id: n for n in index.get_nodes(ids)}
    rows = []
    for row in seen.values():
        found = [nodes.get(c) for c in row["chunks"]]
        if any(n is None or n.metadata.get("status") != "active" for n in found):
            continue  # one side was changed or retired since: the conflict no longer stands
        if not all(audience.can_read(n.metadata) for n in found if n is not None):
            continue  # a side the reviewer may not read: none of its text is shown
        row["where"] = " ↔ ".join(_section_label(n) for n in found)
        rows.append(row)
    return sorted(rows, key=lambda r: (-r["seen_in_answers"], r["where"]))


class Insights:
    """The Insights tab's data for reviewers and admins (`review_tickets`); no usernames anywhere."""

    def __init__(
        self, index, tickets, query_log: Path, retention_days: int = 0, resolver: GapResolver | None = None
    ) -> None:
        self.index = index
        self.tickets = tickets
        self.query_log = Path(query_log)
        self.retention_days = retention_days
        self.resolver = resolver
        prune_log(self.query_log, retention_days)

    def overview(self, identity) -> dict:
        from governance.identity import require

        require(identity, "review_tickets")
        records = visible_to(self.index, read_log(self.query_log, self.retention_days), identity.audience)
        cited = {c for r in records for c in (r.get("sources") or [])}
        section_of = {n.node_id: _section_label(n) for n in self.index.get_nodes(sorted(cited))} if cited else {}
        data = overview(records, section_of)
        data["claims"] = claims_summary(self.tickets.list(None))
        return data

    def conflicts(self, identity) -> list[dict]:
        """Open conflicts between active documents, for reviewers (governance.insights.open_conflicts)."""
        from governance.identity import require

        require(identity, "review_tickets")
        return open_conflicts(
            read_log(self.query_log, self.retention_days), self.index, self.tickets, identity.audience
        )

    def gaps(self, identity) -> list[GapGroup]:
        from governance.identity import require

        require(identity, "review_tickets")
        return knowledge_gaps(self.query_log, self.index, self.retention_days, identity.audience, self.resolver)

    def operations(self, identity) -> dict:
        """Errors, latency by stage per day and abstention reasons (governance.turn_stats)."""
        from governance.identity import require

        require(identity, "review_tickets")
        return turn_stats(read_log(self.query_log, self.retention_days))
