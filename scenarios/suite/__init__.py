"""The scenario benchmark (`python -m scenarios run`): sessions, runner, metrics, report.

benchmark.py runs it; runner.py plays the sessions (sessions/*.yaml) through the service layer;
metrics.py and report.py score and write it; loo.py is the leave-one-out check; generative.py the
same in generative mode (`python -m scenarios.suite.generative`).
"""
