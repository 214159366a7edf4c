"""Train the answerability model (pipeline.gate.answerability) on SQuAD 2.0, split by article.

    python -m pipeline.evaluation.train_support                       # full training (CPU: ~30 min)
    python -m pipeline.evaluation.train_support --smoke --out /tmp/a.pt   # a few examples, seconds (CI)

Data: `../shared/data/squad2/dev-v2.0.json` (CC BY-SA 4.0), 16 Wikipedia articles. The articles
are shuffled with the seed and split: `train` (fit the weights), `calibration` (choose the epoch,
later τ and λ) and `heldout` (never touched; reported only). Pairs per question:
- the question with its own paragraph: 1 when answerable, 0 for SQuAD's adversarial
  unanswerable questions (same words, the asked-for thing absent: the near-miss);
- an answerable question with the most similar *other* paragraph of its article: 0 (the negative
  every corpus gives for free: the best remaining passage once the answering one is gone).
Golden dev pairs of our own corpus (question with its gold section: 1; with the best other
section: 0) are added with `--golden-dev` (the default); policy-dev is never used (measuring only).

Only the top `--layers` transformer layers and a linear head on mean-pooled tokens are trained: the
lower layers' outputs are computed once and cached, so an epoch costs about a third of full
fine-tuning on the CPU. Prints AUROC on calibration and held-out pairs; writes the weights with the
split, seed and metrics inside.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.evaluation.golden import section_match
from pipeline.evaluation.squad import SQUAD_FILE, load_squad, split_articles
from pipeline.gate.answerability import DEFAULT_MODEL_FILE, MAX_TOKENS, mean_pool, sentence_window
from pipeline.ground.config import REPO_ROOT, set_offline_environment
from pipeline.language.text import split_sentences


@dataclass(frozen=True)
class Pair:
    question: str
    passage: str
    label: int
    article: str
    kind: str  # "own" | "other" | "golden"


def _sentence_at(sentences: list[str], context: str, offset: int) -> int:
    """Index of the sentence of `context` that holds character `offset`."""
    position = 0
    for i, sentence in enumerate(sentences):
        found = context.find(sentence[:40], position)
        if found < 0:
            continue
        if found > offset:
            return max(0, i - 1)
        position = found
    return len(sentences) - 1


def squad_pairs(
    articles: dict[str, list[dict]],
    titles: list[str],
    encode,
    rng: random.Random,
    other_negatives: bool = True,
    paragraphs_per_article: int = 0,
) -> list[Pair]:
    """Windows around the answer (or, for unanswerable questions, SQuAD's plausible answer) of each
    question's own paragraph, plus, for answerable questions, the window around the closest sentence
    of the most similar other paragraph of the article (a free negative)."""
    pairs: list[Pair] = []
    for title in titles:
        paragraphs = articles[title][: paragraphs_per_article or None]
        heading = title.replace("_", " ")
        contexts = [p["context"] for p in paragraphs]
        sentences = [split_sentences(c) for c in contexts]
        questions = []
        for i, p in enumerate(paragraphs):
            for qa in p["qas"]:
                spans = qa.get("answers") or qa.get("plausible_answers") or []
                if not spans:
                    continue
                focus = _sentence_at(sentences[i], contexts[i], int(spans[0]["answer_start"]))
                questions.append((i, qa["question"], not qa["is_impossible"], focus))
        for i, question, answerable, focus in questions:
            pairs.append(Pair(question, sentence_window(sentences[i], focus, heading), int(answerable), title, "own"))
        if not other_negatives or len(contexts) < 2:
            continue
        cvec = encode(contexts)
        qvec = encode([q for _, q, _, _ in questions])
        sims = qvec @ cvec.T
        flat = [(i, j) for i, ss in enumerate(sentences) for j in range(len(ss))]
        svec = encode([sentences[i][j] for i, j in flat])
        for row, (i, question, answerable, _) in enumerate(questions):
            if not answerable:
                continue
            sims[row, i] = -2.0
            other = int(np.argmax(sims[row]))
            rows = [k for k, (pi, _) in enumerate(flat) if pi == other]
            best = rows[int(np.argmax(svec[rows] @ qvec[row]))]
            pairs.append(Pair(question, sentence_window(sentences[other], flat[best][1], heading), 0, title, "other"))
    rng.shuffle(pairs)
    return pairs


def golden_pairs(encode) -> list[Pair]:
    """Our own corpus's dev split: a question with the best window of its gold section (1) and of the
    best other section (0)."""
    from pipeline.ingest.chunking import chunk_document
    from pipeline.ingest.documents import find_documents, read_document

    docs_dir = REPO_ROOT / "data" / "policies"
    chunks = [c for path in find_documents(docs_dir) for c in chunk_document(read_document(path, docs_dir))]
    sentences = [split_sentences(c.text) or [c.text] for c in chunks]
    headings = [f"{c.title}. {c.section}" for c in chunks]
    rows = [json.loads(line) for line in (REPO_ROOT / "data" / "golden" / "dev.jsonl").open(encoding="utf-8")]
    rows = [r for r in rows if r["type"] in ("answerable", "multi_section", "unanswerable")]
    cvec = encode([f"{h}. {c.text}" for h, c in zip(headings, chunks, strict=False)])
    qvec = encode([r["question"] for r in rows])
    svecs = [encode(ss) for ss in sentences]

    def window(q: int, c: int) -> str:
        return sentence_window(sentences[c], int(np.argmax(svecs[c] @ qvec[q])), headings[c])

    pairs: list[Pair] = []
    for q, (row, r) in enumerate(zip(qvec @ cvec.T, rows, strict=False)):
        is_gold = [
            any(
                c.doc_id == g["doc_id"]
                and any(section_match(str(g["section"]), n) for n in c.section_numbers.split(",") if n)
                for g in r.get("gold") or []
            )
            for c in chunks
        ]
        for c, hit in enumerate(is_gold):
            if hit and r["type"] != "unanswerable":
                pairs.append(Pair(r["question"], window(q, c), 1, "golden", "golden"))
        best_other = next(int(i) for i in np.argsort(-row) if not is_gold[int(i)])
        pairs.append(Pair(r["question"], window(q, best_other), 0, "golden", "golden"))
    return pairs


def auroc(labels: list[int], scores: list[float]) -> float:
    from sklearn.metrics import roc_auc_score

    if len(set(labels)) < 2:
        return float("nan")
    return float(roc_auc_score(labels, scores))


class _Trainer:
    """The lower layers run once (cached, no gradient); the top layers and the head train."""

    def __init__(self, trained_layers: int, seed: int) -> None:
        import torch
        from transformers import AutoModel, AutoTokenizer

        from pipeline.gate.answerability import base_model_path

        torch.manual_seed(seed)
        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(base_model_path(), local_files_only=True)
        self.base = AutoModel.from_pretrained(base_model_path(), local_files_only=True).eval()
        layers = self.base.encoder.layer
        self.frozen_count = len(layers) - trained_layers
        self.trained_layers = trained_layers
        self.top = torch.nn.ModuleList([copy.deepcopy(layer) for layer in layers[self.frozen_count :]])
        self.head = torch.nn.Linear(self.base.config.hidden_size, 1)

    def _run_layers(self, layers, hidden, mask):
        from transformers.masking_utils import create_bidirectional_mask

        ext = create_bidirectional_mask(config=self.base.config, inputs_embeds=hidden, attention_mask=mask)
        for layer in layers:
            out = layer(hidden, attention_mask=ext)
            hidden = out[0] if isinstance(out, tuple) else out
        return hidden

    def lower(self, pairs: list[Pair], batch_size: int = 32, desc: str = "lower layers") -> list:
        """Cached lower-layer outputs, one (hidden fp16 [tokens, d]) per pair, in order."""
        from tqdm import tqdm

        torch = self.torch
        cached = []
        with torch.inference_mode():
            for start in tqdm(range(0, len(pairs), batch_size), desc=desc, file=sys.stdout):
                chunk = pairs[start : start + batch_size]
                batch = self.tokenizer(
                    [p.question for p in chunk],
                    [p.passage for p in chunk],
                    truncation="only_second",
                    max_length=MAX_TOKENS,
                    padding=True,
                    return_tensors="pt",
                )
                hidden = self.base.embeddings(input_ids=batch["input_ids"], token_type_ids=batch["token_type_ids"])
                hidden = self._run_layers(self.base.encoder.layer[: self.frozen_count], hidden, batch["attention_mask"])
                for row, length in zip(hidden, batch["attention_mask"].sum(1).tolist(), strict=False):
                    cached.append(row[:length].to(torch.float16).clone())
        return cached

    def check_split_forward(self, question: str, passage: str) -> float:
        """Max difference between cached-lower + top forward and the model's own forward."""
        torch = self.torch
        batch = self.tokenizer(
            [question], [passage], return_tensors="pt", truncation="only_second", max_length=MAX_TOKENS
        )
        with torch.inference_mode():
            full = self.base(**batch).last_hidden_state
            hidden = self.base.embeddings(input_ids=batch["input_ids"], token_type_ids=batch["token_type_ids"])
            hidden = self._run_layers(self.base.encoder.layer, hidden, batch["attention_mask"])
        return float((full - hidden).abs().max())

    def _batch(self, cached: list, idx: list[int]):
        torch = self.torch
        longest = max(cached[i].shape[0] for i in idx)
        dim = cached[idx[0]].shape[1]
        hidden = torch.zeros(len(idx), longest, dim)
        mask = torch.zeros(len(idx), longest, dtype=torch.long)
        for row, i in enumerate(idx):
            n = cached[i].shape[0]
            hidden[row, :n] = cached[i].float()
            mask[row, :n] = 1
        return hidden, mask

    def forward(self, hidden, mask):
        return self.head(mean_pool(self._run_layers(self.top, hidden, mask), mask)).squeeze(-1)

    def predict(self, cached: list, batch_size: int = 64) -> list[float]:
        torch = self.torch
        self.top.eval()
        order = sorted(range(len(cached)), key=lambda i: cached[i].shape[0])
        out = [0.0] * len(cached)
        with torch.inference_mode():
            for start in range(0, len(order), batch_size):
                idx = order[start : start + batch_size]
                for i, value in zip(idx, self.forward(*self._batch(cached, idx)).tolist(), strict=False):
                    out[i] = value
        return out

    def fit(
        self, cached: list, labels: list[int], epochs: float, batch_size: int, lr: float, seed: int, evaluate=None
    ) -> list[dict]:
        """AdamW with linear warm-up and decay; batches of similar length; `evaluate(epoch)` after each epoch."""
        from tqdm import tqdm

        torch = self.torch
        rng = random.Random(seed)
        params = [{"params": self.top.parameters(), "lr": lr}, {"params": self.head.parameters(), "lr": lr * 20}]
        optimiser = torch.optim.AdamW(params, weight_decay=0.01)
        steps_per_epoch = max(1, len(cached) // batch_size)
        total = max(1, int(steps_per_epoch * epochs))
        warmup = max(1, total // 10)
        schedule = torch.optim.lr_scheduler.LambdaLR(
            optimiser, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / max(1, total - warmup)))
        )
        target = torch.tensor(labels, dtype=torch.float32)
        loss_fn = torch.nn.BCEWithLogitsLoss()
        history, step, epoch = [], 0, 0
        while step < total:
            epoch += 1
            # length-bucketed batches, shuffled: little padding, still random order
            order = sorted(range(len(cached)), key=lambda i: cached[i].shape[0] + rng.random() * 8)
            batches = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
            rng.shuffle(batches)
            self.top.train()
            bar = tqdm(batches[: total - step], desc=f"epoch {epoch}", file=sys.stdout)
            running = []
            for idx in bar:
                logits = self.forward(*self._batch(cached, idx))
                loss = loss_fn(logits, target[idx])
                optimiser.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.top.parameters(), 1.0)
                optimiser.step()
                schedule.step()
                step += 1
                running.append(float(loss.detach()))
                bar.set_postfix(loss=f"{np.mean(running[-50:]):.3f}")
            record = {"epoch": epoch, "steps": step, "loss": round(float(np.mean(running)), 4)}
            if evaluate:
                record.update(evaluate(epoch))
            print(json.dumps(record), flush=True)
            history.append(record)
        return history

    def state(self) -> dict:
        encoder_state = {}
        for offset, layer in enumerate(self.top):
            for name, value in layer.state_dict().items():
                encoder_state[f"encoder.layer.{self.frozen_count + offset}.{name}"] = value.detach().clone()
        return {
            "encoder": encoder_state,
            "head": self.head.state_dict(),
            "trained_layers": self.trained_layers,
            "max_tokens": MAX_TOKENS,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m pipeline.evaluation.train_support",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--squad", type=Path, default=SQUAD_FILE, help="SQuAD 2.0 JSON (dev-v2.0.json)")
    parser.add_argument("--out", type=Path, default=DEFAULT_MODEL_FILE, help="where to write the weights")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--layers", type=int, default=2, help="top transformer layers to train")
    parser.add_argument("--epochs", type=float, default=2.0)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--no-golden-dev", action="store_true", help="train on SQuAD alone")
    parser.add_argument("--max-pairs", type=int, default=0, help="cap the training pairs (0: all)")
    parser.add_argument("--smoke", action="store_true", help="a few examples, seconds: checks the command works")
    args = parser.parse_args(argv)
    set_offline_environment()
    if not args.squad.is_file():
        print(f"error: {args.squad} not found (SQuAD 2.0 dev JSON; see models/README.md)", file=sys.stderr)
        return 2
    import torch

    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    started = time.time()
    articles = load_squad(args.squad)
    split = split_articles(list(articles), args.seed)
    print("split:", json.dumps(split), flush=True)

    from pipeline.ingest.embedding import load_sentence_model

    sentence_model = load_sentence_model()

    def encode(texts: list[str]) -> np.ndarray:
        return sentence_model.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)

    per_article = 0
    if args.smoke:  # one article of each part, its first paragraphs: seconds
        split = {part: titles[:1] for part, titles in split.items()}
        per_article = 3
        args.layers, args.epochs, args.batch_size = 1, 1.0, 8
    train = squad_pairs(articles, split["train"], encode, rng, paragraphs_per_article=per_article)
    if not args.no_golden_dev and not args.smoke:
        train += golden_pairs(encode)
        rng.shuffle(train)
    calibration = squad_pairs(articles, split["calibration"], encode, rng, False, per_article)
    heldout = squad_pairs(articles, split["heldout"], encode, rng, False, per_article)
    if args.max_pairs:
        train = train[: args.max_pairs]
    print(
        f"pairs: train {len(train)} (positive {sum(p.label for p in train)}), "
        f"calibration {len(calibration)}, heldout {len(heldout)}",
        flush=True,
    )

    trainer = _Trainer(args.layers, args.seed)
    drift = trainer.check_split_forward(train[0].question, train[0].passage)
    if drift > 1e-3:
        print(f"error: the split forward differs from the model's own by {drift:.2e}", file=sys.stderr)
        return 1
    cached_train = trainer.lower(train, desc="lower layers (train)")
    cached_cal = trainer.lower(calibration, desc="lower layers (calibration)")
    cal_labels = [p.label for p in calibration]

    def evaluate(epoch: int) -> dict:
        return {"calibration_auroc": round(auroc(cal_labels, trainer.predict(cached_cal)), 4)}

    before = evaluate(0)["calibration_auroc"]
    print(json.dumps({"untrained_head_calibration_auroc": before}), flush=True)
    history = trainer.fit(
        cached_train, [p.label for p in train], args.epochs, args.batch_size, args.lr, args.seed, evaluate
    )
    cached_held = trainer.lower(heldout, desc="lower layers (held-out)")
    held_scores = trainer.predict(cached_held)
    metrics = {
        "heldout_pair_auroc": round(auroc([p.label for p in heldout], held_scores), 4),
        "calibration_pair_auroc": history[-1].get("calibration_auroc"),
        "train_pairs": len(train),
        "calibration_pairs": len(calibration),
        "heldout_pairs": len(heldout),
        "history": history,
        "minutes": round((time.time() - started) / 60, 1),
    }
    state = trainer.state()
    state.update(
        seed=args.seed,
        split=split,
        metrics=metrics,
        args={k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    torch.save(state, tmp)
    tmp.replace(args.out)
    print(json.dumps({k: v for k, v in metrics.items() if k != "history"}), flush=True)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
