"""Cited-or-silent core: the stages a question travels through, one subpackage each.

In the order a question travels (engine.py wires one turn, top to bottom):

    ingest/     documents in: conversion, chunking, embedding, the Chroma index, sentence vectors,
                term statistics
    retrieve/   vector + BM25 fusion over the index; the Chroma client (embedded or server)
    gate/       the support score σ, its parts and the answer / clarify / abstain decision;
                answer types, the trained reader, τ's calibrated risk
    answer/     extractive synthesis, LLM writing (only after the gate said answer), verification,
                follow-up rewriting

underneath them all:

    language/   tokens, stems, sentences, quantities, the question record, the glossary, word rarity
    ground/     config (the one reader of the environment), records, locked atomic storage, keys,
                the query log

and beside them, above the engine, never imported by the app:

    evaluation/ the `python -m pipeline.eval` contract and golden report, outside data, ablation,
                calibration runs, the reader's training

Arrows point one way: engine → answer → gate → retrieve → ingest → language → ground;
evaluation → engine and below. pipeline imports nothing from memory/, governance/ or ui/.
`make lint` checks these arrows (import-linter, the contracts in pyproject.toml). Heavy modules
(torch, chromadb) load only when an engine is built, so `import pipeline` stays cheap.
"""

from pipeline.ground.config import Config, load_config
from pipeline.ground.records import Answer, AnswerStyle, Chunk, Citation, SupportScore

__all__ = ["Answer", "AnswerStyle", "Chunk", "Citation", "Config", "SupportScore", "load_config"]
