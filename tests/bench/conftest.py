"""Benchmarks print their tables; run with `pytest -m bench -s tests/bench`."""
