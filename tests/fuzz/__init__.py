"""A hostile-server fuzzer (#18): random schemas, strings and event orders through the real client.

`pytest tests/fuzz` runs it derandomized with bounded examples (under 2 minutes on 2 cores);
`MCP_WIDGETS_FUZZ=long pytest tests/fuzz` runs 20 times as many, randomized. Defects it found are kept as
named regression tests in test_fuzz_regressions.py. The flood sizes (strategies.MAX_FLOOD) stay moderate
until the per-call question bound (`connect(max_questions=…)`) lands.
"""
