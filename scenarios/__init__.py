"""Multi-turn scenario benchmark (`python -m scenarios run`) and the performance bench (`python -m scenarios.bench`)."""
