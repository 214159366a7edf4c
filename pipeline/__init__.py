"""Cited-or-silent core: ingest, index, retrieve, support-gate, answer, verify.

Imports nothing from memory/, governance/ or ui/. Heavy modules (torch, chromadb) load only when
an engine is built, so `import pipeline` stays cheap.
"""

from pipeline.config import Config, load_config
from pipeline.records import Answer, AnswerStyle, Chunk, Citation, SupportScore

__all__ = ["Answer", "AnswerStyle", "Chunk", "Citation", "Config", "SupportScore", "load_config"]
