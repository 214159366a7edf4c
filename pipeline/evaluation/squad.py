"""SQuAD 2.0 as the measurements read it: the 16 articles of `../shared/data/squad2/`.

`dev-v2.0.json` (CC BY-SA 4.0) is a measuring set: nothing is trained, tuned or chosen on it
(the reader trains on the other 19 articles of the same dev set, `../shared/data/answerability/`).
Each article becomes one `.txt` document (paragraphs separated by blank lines) and a fixed, seeded,
balanced sample of its answerable and adversarial unanswerable questions is asked.
"""

from __future__ import annotations

import json
from pathlib import Path

from pipeline.ground.config import REPO_ROOT

SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
SQUAD_FILE = SHARED_DATA / "squad2" / "dev-v2.0.json"
PER_SIDE = 400  # answerable and unanswerable questions each: 800 in all


def load_squad(path: Path) -> list[tuple[str, list[dict]]]:
    """(article title, paragraphs [{context, qas: [{id, question, is_impossible, answers}]}]), in file order."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    return [(a["title"], a["paragraphs"]) for a in data["data"]]
