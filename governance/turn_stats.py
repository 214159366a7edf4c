"""The operator's numbers from the query log: turns and errors per day, latency by stage over time,
and why Warrant abstained, grouped.

Every chat turn has a line (pipeline.ground.querylog): its `kind`, its decision, the error's class
when it failed, and the stage timings the engine measured. Stages are summed into three:
retrieval (embedding the question, the vector search and BM25 fusion, a two-part question's
extra searches), answer (the support gate, choosing and verifying sentences) and LLM (the optional
writer and the check of what it wrote); `total` is the whole turn as the engine or the service measured it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import numpy as np

STAGES: dict[str, tuple[str, ...]] = {
    "retrieval": ("embed", "retrieve", "parts"),
    "answer": ("support", "synthesise", "verify"),
    "llm": ("generate", "verify_generated"),
    "total": ("total",),
}
_SIGMA_BELOW = re.compile(r"^σ [\d.]+ < τ [\d.]+;?\s*")
_SET_ASIDE = re.compile(r";\s*set aside \d+ instruction sentence\(s\).*$")
_DROPPED = re.compile(r";\s*\d+ unsupported sentence\(s\) dropped$")


def reason_group(reason: str) -> str:
    """An abstention's reason without its numbers and named terms, so that like reasons group:
    "σ 0.41 < τ 0.58; the policies do not mention: hostel, curfew" → "below τ: the policies do
    not mention some of the question's words"."""
    text = _DROPPED.sub("", _SET_ASIDE.sub("", str(reason or "").strip()))
    below = bool(_SIGMA_BELOW.match(text))
    text = _SIGMA_BELOW.sub("", text)
    if text.endswith(":") or ": " in text:
        text = text.split(":", 1)[0] + " some of the question's words"
    text = text or "no reason recorded"
    return f"below τ: {text}" if below else text


def stage_ms(timings: dict, stage: str) -> float | None:
    """One stage's time in a line's `timings_ms` (None when the turn had no such stage)."""
    values = [timings[k] for k in STAGES[stage] if isinstance(timings.get(k), (int, float))]
    return float(sum(values)) if values else None


def _percentiles(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


def turn_stats(records: list[dict]) -> dict:
    """Per day: turns, errors and the error rate, and p50/p95 latency (ms) of each stage; over all
    days: the error rate, errors by class, turns by kind, and abstention reasons grouped (largest
    first)."""
    turns: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    latency: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    error_classes: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for r in records:
        day = str(r.get("ts", ""))[:10]
        turns[day] += 1
        kinds[str(r.get("kind") or "policy")] += 1
        if r.get("decision") == "error" or r.get("kind") == "error":
            errors[day] += 1
            error_classes[str(r.get("error") or "unknown")] += 1
        if r.get("decision") == "abstain":
            reasons[reason_group(str(r.get("reason", "")))] += 1
        timings = r.get("timings_ms")
        timings = timings if isinstance(timings, dict) else {}
        for stage in STAGES:
            value = stage_ms(timings, stage)
            if value is not None:
                latency[stage][day].append(value)
    days = sorted(turns)
    by_stage = {
        stage: {day: dict(zip(("p50", "p95"), _percentiles(latency[stage].get(day, [])), strict=True)) for day in days}
        for stage in STAGES
    }
    total = sum(turns.values())
    return {
        "days": days,
        "turns": {d: turns[d] for d in days},
        "errors": {d: errors[d] for d in days},
        "error_rate": (sum(errors.values()) / total) if total else None,
        "error_rate_by_day": {d: errors[d] / turns[d] for d in days},
        "error_classes": error_classes.most_common(),
        "kinds": dict(kinds),
        "latency": by_stage,
        "abstention_reasons": reasons.most_common(10),
    }
