"""Clipping: what the wire keeps of a long message (long strings, long lists and deep nesting cut, each
saying what was cut), so that its ring stays bounded whatever a server sends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..redaction import REDACTED, Matcher, redact_head
from ..text import plural
from ._sizing import ATOMS

__all__ = ["DEPTH_KEEP", "LIST_KEEP", "STRING_KEEP", "clipped"]

STRING_KEEP = 400
"""A string longer than this is kept clipped, with its size."""
LIST_KEEP = 50
"""Items of a list kept; the rest are counted."""
DEPTH_KEEP = 16
"""Nesting kept; deeper values are counted."""


def clipped(value: Any, depth: int = 0, typed: Matcher | None = None) -> Any:
    """`value` (JSON-like) with long strings, long lists and deep nesting cut, each saying what was cut; with
    `typed`, what is kept is redacted as `scrub` does: only what is kept is searched, never the whole text
    (one 50 MB string costs what a 400-character one does)."""
    kind = type(value)
    if kind is bool or value is None:
        return value
    if kind in ATOMS:  # what JSON parses to first: no ABC checks on the way (this runs for every message)
        return REDACTED if typed is not None and typed.search(str(value)) else value
    if isinstance(value, str):
        if len(value) <= STRING_KEEP:
            return value if typed is None else typed.sub(REDACTED, value)
        return f"{redact_head(value, typed, STRING_KEEP)} [{len(value):,} characters]"
    if isinstance(value, Mapping):
        if depth >= DEPTH_KEEP:
            return f"[{plural(len(value), 'key')} nested deeper]"
        return {clipped(str(k), depth, typed): clipped(v, depth + 1, typed) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if depth >= DEPTH_KEEP:
            return f"[{plural(len(value), 'item')} nested deeper]"
        kept = [clipped(v, depth + 1, typed) for v in value[:LIST_KEEP]]
        if len(value) > LIST_KEEP:
            kept.append(f"[… {plural(len(value) - LIST_KEEP, 'more item')}]")
        return kept
    return clipped(str(value), depth, typed)  # not JSON (an in-process server's object): kept as its text
