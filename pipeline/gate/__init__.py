"""The gate: whether the retrieved evidence warrants an answer.

Owns: the support score σ = λ_sim·sim + λ_reader·reader + λ_coverage·coverage +
λ_consistency·consistency and the answer / clarify / abstain decision (support.py,
`SupportPostprocessor`), the trained reader that reads a question and a sentence together
(reader.py) and its verdicts on the candidate sentences (readings.py), the question's focal need
(answer_type.py) and τ's stated risk (calibration.py).
May import pipeline.retrieve, pipeline.ingest, pipeline.language and pipeline.ground.
"""
