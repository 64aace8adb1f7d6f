"""Tool calls run as tasks: the 2025-11-25 experimental utility and the 2026-07-28 extension.
See docs/tasks.md and docs/architecture.md.
"""
