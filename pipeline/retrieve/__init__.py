"""Retrieval: the chunks a question is answered from.

Owns: the fusion of vector and BM25 rankings (hybrid.py) and the Chroma client, embedded or a
server (chroma_client.py). May import pipeline.ingest, pipeline.language and pipeline.ground.
"""
