"""Tools as functions and tool forms, the pure part: a tool's input schema read as arguments, their
signature and docstring, checks and values. See docs/functions.md and docs/architecture.md.
"""
