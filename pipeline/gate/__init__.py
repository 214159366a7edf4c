"""The gate: whether the retrieved evidence warrants an answer.

Owns: the support score σ = λ1·sim + λ2·coverage + λ3·consistency and the answer / clarify /
abstain decision (support.py, `SupportPostprocessor`), the question's focal need (answer_type.py),
the answerability model behind coverage (answerability.py) and τ's stated risk (calibration.py).
May import pipeline.retrieve, pipeline.ingest, pipeline.language and pipeline.ground.
"""
