"""A learned answerability score: P(this passage answers this question).

all-MiniLM-L6-v2 read as a cross-encoder: the question and the passage go through the transformer
together (`[CLS] question [SEP] passage [SEP]`), the token vectors are mean-pooled (the model was
trained with mean pooling, so its pooler and [CLS] carry nothing useful: see GOTCHAS.md) and a
linear head gives one logit. Only the top layers and the head are trained
(`python -m pipeline.evaluation.train_support`); the lower layers are the packaged MiniLM, so the file under
`models/` holds just the trained layers (a few MB) and loads offline beside the installed model.

Why a model and not word rules: "Can I bring my dog to the exam hall?" shares every word but one
with the hall-ticket section; a word list must know which word matters, for every corpus. A model
that reads both texts together learns what a missing or contradicted detail looks like, from data
(SQuAD 2.0's adversarial unanswerable questions), and carries to documents nobody wrote rules for.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.ground.config import REPO_ROOT, set_offline_environment

DEFAULT_MODEL_FILE = REPO_ROOT / "models" / "answerability.pt"
MAX_TOKENS = 160
WINDOW_NEIGHBOURS = 1  # sentences kept on each side of a focus sentence
WINDOW_MAX_WORDS = 90

_LOCK = threading.Lock()
_CACHE: dict[str, AnswerabilityModel] = {}


@dataclass(frozen=True)
class ModelInfo:
    """What a trained file says about itself (kept in the file beside the weights)."""

    trained_layers: int
    max_tokens: int
    seed: int
    metrics: dict


def base_model_path() -> str:
    from pipeline.ingest.embedding import model_path

    return model_path()


def sentence_window(sentences: Sequence[str], focus: int, heading: str = "") -> str:
    """The focus sentence with its neighbours (at most WINDOW_MAX_WORDS words), after the heading.

    The model reads a window, not a whole chunk: a question and ~90 words cost ~130 tokens, so a
    few windows fit the latency budget on a CPU, and training and inference read the same shape
    (around the answer's sentence in training; around the sentences closest to the question here).
    """
    lo, hi = max(0, focus - WINDOW_NEIGHBOURS), min(len(sentences), focus + WINDOW_NEIGHBOURS + 1)
    words = " ".join(sentences[lo:hi]).split()
    if len(words) > WINDOW_MAX_WORDS:  # keep the focus sentence whole where it fits
        start = len(" ".join(sentences[lo:focus]).split())
        begin = max(0, min(start, len(words) - WINDOW_MAX_WORDS))
        words = words[begin : begin + WINDOW_MAX_WORDS]
    body = " ".join(words)
    return f"{heading}. {body}" if heading else body


def mean_pool(hidden: Any, mask: Any) -> Any:
    """Average of the token vectors where the attention mask is 1."""
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * weights).sum(1) / weights.sum(1).clamp(min=1.0)


class AnswerabilityModel:
    """MiniLM with its top `trained_layers` layers and a head replaced by trained weights.

    `score(question, passages)` returns one probability per passage. Thread-safe for inference
    (torch releases the GIL inside its kernels; the model is read-only).
    """

    def __init__(self, encoder: Any, tokenizer: Any, head: Any, info: ModelInfo) -> None:
        self.encoder = encoder
        self.tokenizer = tokenizer
        self.head = head
        self.info = info

    @classmethod
    def load(cls, path: Path | str = DEFAULT_MODEL_FILE, quantize: bool = True) -> AnswerabilityModel:
        """Load the packaged MiniLM, then the trained top layers and head from `path`.

        `quantize` applies PyTorch's dynamic int8 quantisation to the linear layers (CPU only):
        measured to keep the scores' ranking and to cut the time per question.
        """
        set_offline_environment()
        import torch
        from transformers import AutoModel, AutoTokenizer

        state = torch.load(Path(path), map_location="cpu", weights_only=False)
        encoder = AutoModel.from_pretrained(base_model_path(), local_files_only=True)
        tokenizer = AutoTokenizer.from_pretrained(base_model_path(), local_files_only=True)
        _missing, unexpected = encoder.load_state_dict(state["encoder"], strict=False)
        if unexpected:
            raise ValueError(f"{path}: weights that MiniLM does not have: {unexpected[:3]}")
        head = torch.nn.Linear(encoder.config.hidden_size, 1)
        head.load_state_dict(state["head"])
        encoder.eval()
        head.eval()
        if quantize:
            encoder = torch.ao.quantization.quantize_dynamic(encoder, {torch.nn.Linear}, dtype=torch.qint8)
        info = ModelInfo(
            trained_layers=int(state["trained_layers"]),
            max_tokens=int(state.get("max_tokens", MAX_TOKENS)),
            seed=int(state.get("seed", 0)),
            metrics=dict(state.get("metrics", {})),
        )
        return cls(encoder, tokenizer, head, info)

    def logits(self, questions: Sequence[str], passages: Sequence[str]) -> np.ndarray:
        """One logit per (question, passage) pair, in one padded batch."""
        import torch

        if not passages:
            return np.zeros(0, dtype=np.float32)
        batch = self.tokenizer(
            list(questions),
            list(passages),
            truncation="longest_first",
            max_length=self.info.max_tokens,
            padding=True,
            return_tensors="pt",
        )
        with torch.inference_mode():
            hidden = self.encoder(**batch).last_hidden_state
            return self.head(mean_pool(hidden, batch["attention_mask"])).squeeze(-1).float().numpy()

    def score(self, question: str, passages: Sequence[str]) -> np.ndarray:
        """P(passage answers question) for each passage."""
        logits = self.logits([question] * len(passages), passages)
        return 1.0 / (1.0 + np.exp(-logits))


def answerability_model(path: Path | str = DEFAULT_MODEL_FILE) -> AnswerabilityModel | None:
    """The process's model for `path` (loaded once), or None when no trained file is there."""
    key = str(Path(path).resolve())
    with _LOCK:
        if key not in _CACHE:
            if not Path(path).is_file():
                return None
            _CACHE[key] = AnswerabilityModel.load(path)
        return _CACHE[key]


@dataclass(frozen=True)
class CoverageResult:
    """The learned coverage of one question by the retrieved chunks, with what it was made from."""

    coverage: float  # the combiner's probability (or the model's, without a combiner)
    probability: float  # the model's P(answerable) of the best window
    best_sentence_cosine: float  # question vs the closest sentence of the retrieved chunks
    chunk_id: str  # the chunk the best window came from ("" when nothing was scored)
    window: str


@dataclass(frozen=True)
class CoverageCombiner:
    """coverage = sigmoid(w_p·logit(P) + w_s·best sentence cosine + b): a logistic regression
    fitted by `python -m pipeline.eval --calibrate` (scikit-learn) and kept in calibration.json.

    Why two signals: the model reads the question and a window together and catches a missing or
    contradicted detail on Wikipedia-style text, while MiniLM's question-to-sentence cosine carries
    paraphrase ("holiday" ~ "annual leave") on policy text where the model alone ranks no better
    than chance (measured on policy-dev)."""

    weight_logit_p: float = 1.0
    weight_sentence_cosine: float = 0.0
    bias: float = 0.0

    @staticmethod
    def features(probability: float, best_sentence_cosine: float) -> list[float]:
        p = min(max(probability, 1e-4), 1 - 1e-4)
        return [float(np.log(p / (1 - p))), float(best_sentence_cosine)]

    def __call__(self, probability: float, best_sentence_cosine: float) -> float:
        logit_p, cosine = self.features(probability, best_sentence_cosine)
        z = self.weight_logit_p * logit_p + self.weight_sentence_cosine * cosine + self.bias
        return float(1.0 / (1.0 + np.exp(-z)))

    @classmethod
    def from_dict(cls, values: dict | None) -> CoverageCombiner:
        values = values or {}
        return cls(
            float(values.get("weight_logit_p", 1.0)),
            float(values.get("weight_sentence_cosine", 0.0)),
            float(values.get("bias", 0.0)),
        )


class AnswerabilityCoverage:
    """coverage = the model's P(answers) for the best sentence windows of the retrieved chunks.

    The sentences closest to the question (stored sentence vectors, so no extra embedding) are
    where an answer would be; each is read with its neighbours and its section heading. At most
    `windows` windows are scored, `per_chunk` from any one chunk, in one batch.
    """

    def __init__(
        self,
        model: AnswerabilityModel,
        sentence_vectors: Any,
        windows: int = 4,
        per_chunk: int = 2,
        combiner: CoverageCombiner | None = None,
    ) -> None:
        self.model = model
        self.sentence_vectors = sentence_vectors
        self.combiner = combiner or CoverageCombiner()
        self.windows = windows
        self.per_chunk = per_chunk

    def candidate_windows(self, query_vec: Sequence[float], nodes: Sequence[Any]) -> list[tuple[str, str, float]]:
        """(chunk id, window text, sentence cosine) for the sentences closest to the question, best first."""
        from pipeline.language.text import split_sentences

        if not nodes:
            return []
        contents = {n.node.node_id: n.node.get_content() for n in nodes}
        vectors = self.sentence_vectors.get(list(contents.items()))
        query = np.asarray(query_vec, dtype=np.float32)
        ranked: list[tuple[float, str, int]] = []
        for node in nodes:
            chunk_id = node.node.node_id
            matrix = vectors.get(chunk_id)
            if matrix is None or not len(matrix):
                continue
            sims = np.asarray(matrix, dtype=np.float32) @ query
            for focus in np.argsort(-sims)[: self.per_chunk]:
                ranked.append((float(sims[focus]), chunk_id, int(focus)))
        ranked.sort(key=lambda r: -r[0])
        by_id = {n.node.node_id: n for n in nodes}
        out = []
        for score, chunk_id, focus in ranked[: self.windows]:
            meta = by_id[chunk_id].node.metadata
            heading = ". ".join(x for x in (meta.get("title", ""), meta.get("section", "")) if x)
            out.append((chunk_id, sentence_window(split_sentences(contents[chunk_id]), focus, heading), score))
        return out

    def __call__(self, question: str, query_vec: Sequence[float] | None, nodes: Sequence[Any]) -> CoverageResult:
        windows = self.candidate_windows(query_vec, nodes) if query_vec is not None else []
        if not windows:
            return CoverageResult(0.0, 0.0, 0.0, "", "")
        probabilities = self.model.score(question, [w for _, w, _ in windows])
        best = int(np.argmax(probabilities))
        cosine = windows[0][2]
        probability = float(probabilities[best])
        return CoverageResult(
            self.combiner(probability, cosine), probability, cosine, windows[best][0], windows[best][1]
        )
