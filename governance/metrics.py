"""Metrics for operators in the Prometheus text format, computed from the shared state at each scrape.

Several app processes may serve one state directory, so a counter kept in one process's memory
would count that process's turns only. Warrant already writes every turn, from every process, to
one query log; so each scrape reads the log (only the lines appended since the previous scrape: an
offset, and from the start again when the file was replaced by retention or "forget me"), the
tickets file and the index, and any process answers for the whole deployment. This is chosen over
prometheus-client's multiprocess mode, which needs an environment variable set before import, a
folder wiped at every start, and forgets the counts of a restart. A counter can go down when
retention drops old lines; Prometheus reads that as a counter reset.

Exposed (prometheus-client's collector API, `generate_latest`):

- `warrant_turns_total{decision, kind}`: chat turns (pipeline.ground.querylog's kinds);
- `warrant_errors_total{error}`: failed turns by exception class;
- `warrant_turn_latency_seconds{stage}`: histogram of retrieval, answer, LLM and total time;
- `warrant_open_tickets`: claims waiting for review;
- `warrant_index_chunks{status}`: chunks in the index, active and deprecated.
"""

from __future__ import annotations

import json
import os
import threading
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric

from governance.turn_stats import STAGES, stage_ms

LATENCY_BUCKETS_S = (0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
_READ_CHUNK = 1 << 20


class QueryLogTally:
    """Running totals over a query log, brought up to date by `update()` (thread-safe)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._reset(None)

    def _reset(self, inode: int | None) -> None:
        self.inode = inode
        self.offset = 0
        self.turns: Counter[tuple[str, str]] = Counter()
        self.errors: Counter[str] = Counter()
        self.buckets = {stage: [0] * len(LATENCY_BUCKETS_S) for stage in STAGES}
        self.counts: Counter[str] = Counter()
        self.sums: defaultdict[str, float] = defaultdict(float)

    def update(self) -> None:
        """Count the lines appended since the last update; start over when the file was replaced
        or shortened. A line still being written (no newline yet) waits for the next update."""
        with self._lock:
            try:
                fh = open(self.path, "rb")
            except FileNotFoundError:
                self._reset(None)
                return
            with fh:
                st = os.fstat(fh.fileno())
                if st.st_ino != self.inode or st.st_size < self.offset:
                    self._reset(st.st_ino)
                fh.seek(self.offset)
                pending = b""
                while block := fh.read(_READ_CHUNK):
                    lines = (pending + block).split(b"\n")
                    pending = lines.pop()
                    for line in lines:
                        self._count(line)
                        self.offset += len(line) + 1

    def _count(self, raw: bytes) -> None:
        try:
            record = json.loads(raw)
        except ValueError:
            return
        if not isinstance(record, dict):
            return
        kind = str(record.get("kind") or "policy")
        decision = str(record.get("decision") or "")
        self.turns[(decision, kind)] += 1
        if decision == "error" or kind == "error":
            self.errors[str(record.get("error") or "unknown")] += 1
        timings = record.get("timings_ms")
        if not isinstance(timings, dict):
            return
        for stage in STAGES:
            ms = stage_ms(timings, stage)
            if ms is None:
                continue
            seconds = ms / 1000.0
            self.counts[stage] += 1
            self.sums[stage] += seconds
            for i, bound in enumerate(LATENCY_BUCKETS_S):
                if seconds <= bound:
                    self.buckets[stage][i] += 1

    def snapshot(self) -> tuple[Counter, Counter, dict, Counter, dict]:
        with self._lock:
            return (
                Counter(self.turns),
                Counter(self.errors),
                {s: list(b) for s, b in self.buckets.items()},
                Counter(self.counts),
                dict(self.sums),
            )


class WarrantCollector:
    """A prometheus-client collector over one state directory's query log, tickets and index."""

    def __init__(self, query_log: Path, tickets, index) -> None:
        self.tally = QueryLogTally(query_log)
        self.tickets = tickets
        self.index = index

    def collect(self) -> Iterator[Metric]:
        self.tally.update()
        turns, errors, buckets, counts, sums = self.tally.snapshot()
        by_decision = CounterMetricFamily(
            "warrant_turns", "Chat turns, by decision and kind.", labels=["decision", "kind"]
        )
        for (decision, kind), n in sorted(turns.items()):
            by_decision.add_metric([decision, kind], n)
        yield by_decision
        failed = CounterMetricFamily("warrant_errors", "Chat turns that failed, by exception class.", labels=["error"])
        for name, n in sorted(errors.items()):
            failed.add_metric([name], n)
        yield failed
        latency = HistogramMetricFamily(
            "warrant_turn_latency_seconds",
            "Time per turn and stage: retrieval, answer (gate, synthesis, verification), llm, total.",
            labels=["stage"],
        )
        for stage in STAGES:
            cumulative = [(str(b), float(n)) for b, n in zip(LATENCY_BUCKETS_S, buckets[stage], strict=True)]
            cumulative.append(("+Inf", float(counts[stage])))
            latency.add_metric([stage], cumulative, sum_value=float(sums.get(stage, 0.0)))
        yield latency
        yield GaugeMetricFamily(
            "warrant_open_tickets", "Claims waiting for a reviewer.", value=len(self.tickets.list("open"))
        )
        chunks = GaugeMetricFamily("warrant_index_chunks", "Chunks in the index, by status.", labels=["status"])
        deprecated = self.index.deprecated_count()
        chunks.add_metric(["active"], self.index.count() - deprecated)
        chunks.add_metric(["deprecated"], deprecated)
        yield chunks


class OperatorMetrics:
    """The text `GET /metrics` serves, for one state directory."""

    def __init__(self, query_log: Path, tickets, index) -> None:
        self.registry = CollectorRegistry()
        self.registry.register(WarrantCollector(query_log, tickets, index))

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
