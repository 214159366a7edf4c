"""The answer: what is said once the gate has said answer.

Owns: extractive synthesis from the sentences that answer (synthesis.py), LLM writing over the
cited evidence where configured (generate.py, llm.py), checking every sentence against its cited
chunk (verify.py) and making follow-ups self-contained (rewrite.py). May import pipeline.gate and
every layer below it.
"""
