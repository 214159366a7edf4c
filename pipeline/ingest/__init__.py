"""Documents in: from files to an index a question can be asked of.

Owns: conversion of PDF, Word, HTML and text to markdown (convert.py), documents and their front
matter, chunking, the embedding model (MiniLM, offline), the Chroma index and the only code that
writes to it (index.py), per-sentence vectors and term statistics. May import pipeline.language
and pipeline.ground.
"""
