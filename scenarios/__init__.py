"""Measurements of the whole app, in two subpackages.

- suite/: the multi-turn scenario benchmark (`python -m scenarios run`): scripted sessions
  (suite/sessions/*.yaml) through the service layer the UI calls, beside a standard-RAG baseline,
  the leave-one-out check, and its generative mode (`python -m scenarios.suite.generative`).
- bench/: the performance bench (`python -m scenarios.bench`): latency, cold start, ingest, scale
  and concurrency against LlamaIndex's standard engine.

Reports go to scenarios/reports/.
"""
