"""Train the critic's flagger (governance.critic.flagger) on the labelled critic sentences.

    python -m governance.critic.train_flagger --out models/critic.pt [--epochs 5] [--seed 13]
    python -m governance.critic.train_flagger --smoke --out /tmp/critic.pt   # seconds: what CI runs

Data (`evaluate.training_documents`): the development parts of `data/critic` (DEVELOPMENT) and the
training part `data/critic/training`, less every document quoted from the 18F handbook pages that
../shared/data/policy-dev holds (a measuring set: `LabelledDocument.trainable`). The held-out part
(`heldout`) is never read. A seeded sixth of the training
documents is kept apart as the tuning part: the epoch kept and each flag's threshold are chosen on
it, and its scores go into the file. Every sentence is one example; its flags' losses are masked
where the document settles them and the critic keeps the rules' findings anyway (every flag of a
sentence pointing to a missing part; `no_consequence` in a document with a general enforcement
clause), so the model never learns "no flag" from those.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

import numpy as np

from governance.critic.cues import read_cues
from governance.critic.evaluate import DEVELOPMENT, LabelledDocument, training_documents
from governance.critic.flagger import FORMAT, LEARNED, MAX_LENGTH, FlaggerInput, SentenceFlagger, new_net
from governance.critic.references import dangling_references

SEED = 13
TUNING_SHARE = 1 / 6

Example = tuple[FlaggerInput, list[float], list[float]]  # input, targets, loss mask


def examples(doc: LabelledDocument) -> list[Example]:
    """Each sentence of a labelled document as the flagger reads it, with its targets and mask."""
    texts = [t for t, _ in doc.sentences()]
    headings = [h for h, group in doc.sections for _ in group]
    enforced = any(read_cues(t).has("enforcement") for t in texts)
    policy = doc.policy_text()
    out = []
    for i, (text, gold) in enumerate(doc.sentences()):
        item = FlaggerInput(headings[i], text, texts[i + 1] if i + 1 < len(texts) else "")
        mask = [1.0] * len(LEARNED)
        if dangling_references(text, policy) is not None:
            mask = [0.0] * len(LEARNED)
        if enforced:
            mask[LEARNED.index("no_consequence")] = 0.0
        out.append((item, [float(flag in gold) for flag in LEARNED], mask))
    return out


def split_tuning(
    docs: list[LabelledDocument], seed: int = SEED
) -> tuple[list[LabelledDocument], list[LabelledDocument]]:
    """(learn, tune): a seeded `TUNING_SHARE` of the training part's documents is for tuning."""
    extra = sorted(d.doc for d in docs if d.split not in DEVELOPMENT)
    random.Random(seed).shuffle(extra)
    tune = set(extra[: max(1, round(len(extra) * TUNING_SHARE))]) if extra else set()
    return [d for d in docs if d.doc not in tune], [d for d in docs if d.doc in tune]


def _f1(gold: np.ndarray, guess: np.ndarray) -> float:
    tp = float((gold & guess).sum())
    total = float(gold.sum() + guess.sum())
    return 2 * tp / total if total else 0.0


def tune_thresholds(probs: np.ndarray, gold: np.ndarray, mask: np.ndarray) -> tuple[dict[str, float], dict[str, float]]:
    """Per flag, the threshold of best F1 on the tuning sentences (ties to 0.5), and that F1."""
    thresholds, scores = {}, {}
    grid = [round(float(x), 2) for x in np.arange(0.2, 0.81, 0.05)]
    for k, flag in enumerate(LEARNED):
        keep = mask[:, k] > 0
        g = gold[keep, k] > 0.5
        best = max(grid, key=lambda t: (_f1(g, probs[keep, k] >= t), -abs(t - 0.5)))
        thresholds[flag], scores[flag] = float(best), round(_f1(g, probs[keep, k] >= best), 4)
    return thresholds, scores


def train(
    learn: list[Example], tune: list[Example], epochs: int, lr: float, seed: int, batch: int = 16, threads: int = 0
) -> tuple[dict, dict[str, float], dict]:
    """Fine-tune; returns the best epoch's trained state (by tuning macro F1), thresholds and metrics."""
    import torch

    torch.manual_seed(seed)
    rng = random.Random(seed)
    if threads:
        torch.set_num_threads(threads)
    net = new_net(MAX_LENGTH)
    for p in net.encoder.embeddings.word_embeddings.parameters():
        p.requires_grad = False  # the package's own: not stored in the file
    optimiser = torch.optim.AdamW(
        [
            {"params": [p for p in net.encoder.parameters() if p.requires_grad], "lr": lr},
            {"params": net.head.parameters(), "lr": 1e-3},
        ],
        weight_decay=0.01,
    )
    steps = epochs * math.ceil(len(learn) / batch)
    warm = max(1, int(0.06 * steps))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda s: min((s + 1) / warm, max(0.0, (steps - s) / max(1, steps - warm)))
    )
    gold = np.array([e[1] for e in learn])
    mask = np.array([e[2] for e in learn])
    # rarer flags weigh more: the square root of the negatives per positive
    weight = ((mask * (1 - gold)).sum(0) / np.maximum(1.0, (mask * gold).sum(0))) ** 0.5
    loss_fn = torch.nn.BCEWithLogitsLoss(reduction="none", pos_weight=torch.tensor(weight, dtype=torch.float32))
    tune_gold = np.array([e[1] for e in tune])
    tune_mask = np.array([e[2] for e in tune])
    best: tuple[float, dict, dict[str, float], dict] = (-1.0, {}, {}, {})
    curve = []
    for epoch in range(epochs):
        net.encoder.train()
        order = list(range(len(learn)))
        rng.shuffle(order)
        started, total = time.time(), 0.0
        for start in range(0, len(order), batch):
            part = [learn[i] for i in order[start : start + batch]]
            tokens = net.inputs([e[0].first() for e in part], [e[0].next_sentence for e in part])
            m = torch.tensor([e[2] for e in part])
            loss = (loss_fn(net.forward(tokens), torch.tensor([e[1] for e in part])) * m).sum() / m.sum().clamp(min=1.0)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item() * len(part)
        net.encoder.eval()
        probs = SentenceFlagger(net, {}, {}).probabilities([e[0] for e in tune])
        thresholds, scores = tune_thresholds(probs, tune_gold, tune_mask) if tune else (dict.fromkeys(LEARNED, 0.5), {})
        macro = sum(scores.values()) / len(LEARNED) if scores else 0.0
        curve.append({"epoch": epoch + 1, "loss": round(total / len(learn), 4), "tuning_macro_f1": round(macro, 4)})
        print(
            f"epoch {epoch + 1}: loss {total / len(learn):.4f}, tuning macro F1 {macro:.3f} {scores} "
            f"({time.time() - started:.0f} s)",
            flush=True,
        )
        if macro > best[0]:
            best = (macro, net.trained_state(), thresholds, {"tuning_f1": scores, "epoch": epoch + 1})
    _, state, thresholds, metrics = best
    metrics["curve"] = curve
    return state, thresholds, metrics


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m governance.critic.train_flagger", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--lr", type=float, default=6e-5)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--smoke", action="store_true", help="two documents, one epoch: checks the path, not a model")
    args = parser.parse_args(argv)
    import torch

    learn_docs, tune_docs = split_tuning(training_documents(), args.seed)
    if args.smoke:
        learn_docs, tune_docs, args.epochs = learn_docs[:1], tune_docs[:1], 1
    learn = [e for d in learn_docs for e in examples(d)]
    tune = [e for d in tune_docs for e in examples(d)]
    print(
        f"learning from {len(learn_docs)} documents ({len(learn)} sentences); tuning on {len(tune_docs)} ({len(tune)})"
    )
    state, thresholds, metrics = train(learn, tune, args.epochs, args.lr, args.seed, threads=args.threads)
    metrics.update(learn_documents=len(learn_docs), learn_sentences=len(learn), tune_sentences=len(tune))
    state.update(format=FORMAT, max_length=MAX_LENGTH, seed=args.seed, thresholds=thresholds, metrics=metrics)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(state, args.out)
    print(f"wrote {args.out}: thresholds {thresholds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
