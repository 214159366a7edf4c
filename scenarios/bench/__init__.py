"""The performance bench (`python -m scenarios.bench`): measure.py runs the parts and writes
scenarios/reports/bench.json and bench.md.

Parts: engines.py (Warrant's engine and LlamaIndex's standard one), cold_start.py, ingest.py,
scale.py (synthetic sizes from synthetic.py), concurrency_http.py / concurrency_multi.py /
concurrency_service.py (simulated users from simulated_users.py; a Chroma server from
chroma_server.py), gpu.py (a lent GPU's embedding throughput), report.py and stats.py.
"""
