"""Benchmarks: what the widget layer costs, side by side with the raw MCP SDK and ipywidgets-jsonschema.

Run `python -m benchmarks [--quick] [--only GROUP ...]`. It prints one table of medians, each next to a
baseline measured in the same run, with the ratio, the target and whether it is met. Tests never assert a
time: `tests/house/test_benchmarks.py` only checks that every group ran and printed its rows. A figure whose
measurement fails prints "not measured: <why>" in its row (`_report.not_measured`) and the run goes on.
"""
