"""Choosing τ with a stated risk, and measuring how well σ ranks.

The risk: answering a question the documents do not answer. On a calibration set with n such
questions, a threshold τ that answers k of them has an observed rate k/n; its exact one-sided
(Clopper–Pearson) upper confidence bound is the `confidence` quantile of Beta(k + 1, n − k). τ is
the lowest threshold whose bound stays ≤ α, so that the true rate is ≤ α with that confidence,
and the lowest such τ answers as many answerable questions as the risk allows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np


def risk_upper_bound(answered: int, total: int, confidence: float = 0.90) -> float:
    """Exact binomial upper bound on the rate behind `answered` of `total` (1.0 when total is 0)."""
    from scipy.stats import beta

    if total <= 0:
        return 1.0
    if answered >= total:
        return 1.0
    return float(beta.ppf(confidence, answered + 1, total - answered))


@dataclass(frozen=True)
class Calibration:
    """A threshold and what it costs, on the calibration set it was chosen on."""

    tau: float
    alpha: float
    confidence: float
    unanswerable: int  # n
    answered_unanswerable: int  # k
    risk_bound: float  # upper bound on the rate of answering an unanswerable question
    answerable: int
    answer_rate: float  # share of answerable questions answered at τ

    def as_dict(self) -> dict:
        return asdict(self)


def calibrate_tau(
    answerable_sigma: Sequence[float],
    unanswerable_sigma: Sequence[float],
    alpha: float = 0.05,
    confidence: float = 0.90,
) -> Calibration:
    """The lowest τ (among the observed σ, rounded up to 4 decimals) whose risk bound is ≤ α.

    σ ≥ τ answers. If no threshold meets the bound (too few unanswerable questions to show the risk
    is that low), τ is set above every σ seen: the gate then abstains, which is the honest result.
    """
    pos = np.asarray(answerable_sigma, dtype=float)
    neg = np.sort(np.asarray(unanswerable_sigma, dtype=float))[::-1]  # highest first
    n = len(neg)
    allowed = -1  # the most unanswerable questions τ may answer while the bound holds
    while allowed + 1 < n and risk_upper_bound(allowed + 1, n, confidence) <= alpha:
        allowed += 1
    if allowed < 0:  # not even k = 0 is provably safe: answer nothing seen
        ceiling = max([*neg[:1], *(pos.max(keepdims=True) if len(pos) else [])], default=0.0)
        tau = float(ceiling) + 1e-4
    else:  # just above the (allowed + 1)-th highest unanswerable σ
        tau = float(neg[allowed]) + 1e-4 if allowed < n else 0.0
    tau = float(np.ceil(tau * 10000) / 10000)
    k = int((neg >= tau).sum())
    return Calibration(
        tau=round(tau, 4),
        alpha=alpha,
        confidence=confidence,
        unanswerable=n,
        answered_unanswerable=k,
        risk_bound=round(risk_upper_bound(k, n, confidence), 4),
        answerable=len(pos),
        answer_rate=round(float((pos >= tau).mean()) if len(pos) else 0.0, 4),
    )


def auroc(positive: Sequence[float], negative: Sequence[float]) -> float | None:
    """P(a random positive outranks a random negative), ties counting half; None if a side is empty."""
    if not len(positive) or not len(negative):
        return None
    pos = np.asarray(positive, dtype=float)[:, None]
    neg = np.asarray(negative, dtype=float)[None, :]
    return float(((pos > neg).sum() + 0.5 * (pos == neg).sum()) / (pos.size * neg.size))


def describe_gate(tau: float, gate: dict) -> str:
    """One paragraph for admins: how σ is made, τ now, and what the calibrated τ cost when chosen."""
    lambdas = gate.get("lambdas", {})
    parts = ", ".join(f"{weight:.2f}·{part}" for part, weight in lambdas.items() if weight)
    text = (
        f"σ = {parts or 'λ·parts'} (the reader reads the question with each candidate sentence). Current τ = {tau:.3f}."
    )
    if gate.get("risk_bound") is not None:
        text += (
            f" Calibrated τ = {gate['tau']:.3f} for α = {gate.get('alpha', 0):.2f} on {gate.get('unanswerable', 0)} "
            f"unanswerable and {gate.get('answerable', 0)} answerable tuning questions: answer rate "
            f"{gate.get('answer_rate', 0):.0%}, risk bound {gate['risk_bound']:.3f} (90% confidence), "
            f"chosen {gate.get('date', '')}."
        )
    return text
