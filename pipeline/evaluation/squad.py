"""SQuAD 2.0 as the measurements and the training read it: its articles and their fixed split.

`../shared/data/squad2/dev-v2.0.json` (CC BY-SA 4.0), 16 Wikipedia articles, shuffled with a seed
and split by article: `heldout` (never touched; reported only), `calibration` (choose the epoch,
τ and λ) and `train` (the rest).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from pipeline.ground.config import REPO_ROOT

SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
SQUAD_FILE = SHARED_DATA / "squad2" / "dev-v2.0.json"
SPLIT_SIZES = {"heldout": 4, "calibration": 2}  # the rest is train


def split_articles(titles: list[str], seed: int) -> dict[str, list[str]]:
    """Fixed, seeded split of article titles: heldout, calibration, train."""
    order = sorted(titles)
    random.Random(seed).shuffle(order)
    heldout = order[: SPLIT_SIZES["heldout"]]
    calibration = order[SPLIT_SIZES["heldout"] : SPLIT_SIZES["heldout"] + SPLIT_SIZES["calibration"]]
    train = order[SPLIT_SIZES["heldout"] + SPLIT_SIZES["calibration"] :]
    return {"train": train, "calibration": calibration, "heldout": heldout}


def load_squad(path: Path) -> dict[str, list[dict]]:
    """article title → paragraphs [{context, qas: [{question, is_impossible}]}]."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return {a["title"]: a["paragraphs"] for a in data["data"]}
