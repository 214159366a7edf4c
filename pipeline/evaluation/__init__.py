"""Evaluation and training, beside the runtime: the app (engine, ui, governance, memory, app.py)
never imports this package.

Owns: the `python -m pipeline.eval` command (cli.py; pipeline/eval.py keeps its name) — the
contract (contract.py) and the golden report (golden.py) — the outside data harness (outside.py,
squad.py), the gate's configurations side by side (ablation.py), the calibration run that writes
models/gate.json (calibrate_gate.py) and the reader's training data and training (reader_data.py,
train_reader.py). harness.py builds the fresh engine each starts from. May import
pipeline.engine and every layer below it.
"""
