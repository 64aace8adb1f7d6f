"""JSON sizing: a message's size on the wire, counted without writing it, and whether it is kept whole.

The wire sees every message: most are small and kept as their JSON text whole; a big one is counted (its
strings not copied) and kept clipped (`_clip`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["ATOMS", "WHOLE_KEEP", "dumps", "fits", "json_size", "whole_text"]

ATOMS = frozenset({int, float, bool, type(None)})
"""The JSON types with no parts, checked by identity first (this runs for every message)."""

WHOLE_KEEP = 4096
"""A message this long or shorter (as JSON text) is kept whole: most are, and walking each one to clip it
would cost more than capturing it (the ring stays bounded: 5,000 of them hold at most 20 MB)."""


def fits(raw: str) -> bool:
    """Whether a message whose JSON text is `raw` is kept whole (else `clipped`)."""
    return len(raw) <= WHOLE_KEEP


def json_size(value: Any, limit: int | None = None) -> int:
    """About the bytes of `value` as compact JSON, without writing it (a 50 MB string is not copied): exact
    for what has no escapes, a string's escapes not counted. With `limit`, it stops once past it.

    It runs for every message the wire sees: the types JSON parses to are checked first, by identity, and a
    dict's keys are counted in place; the abstract types (`Mapping`, tuples) only for what is left."""
    total = 0
    todo = [value]
    pop, extend = todo.pop, todo.extend
    while todo:
        item = pop()
        kind = type(item)
        if kind is str:
            total += (len(item) if item.isascii() else len(item.encode("utf-8", "replace"))) + 2
        elif kind is dict or (kind not in ATOMS and kind is not list and isinstance(item, Mapping)):
            if not item:
                total += 2
                continue
            total += 1 + 4 * len(item)  # braces, colons and commas; each key's two quotes
            for key in item:
                text = key if type(key) is str else str(key)
                total += len(text) if text.isascii() else len(text.encode("utf-8", "replace"))
            extend(item.values())
        elif kind is list or kind is tuple or (kind not in ATOMS and isinstance(item, (list, tuple))):
            total += 1 + len(item) if item else 2
            extend(item)
        elif item is None or kind is bool:
            total += 5 if item is False else 4
        else:
            total += len(str(item))
        if limit is not None and total > limit:
            break
    return total


def whole_text(body: Any, dump: Callable[[], str]) -> tuple[str | None, int]:
    """A message's JSON text when it is kept whole (`dump()` writes it; None: it is over `WHOLE_KEEP`, and
    no text of it is written) and its size in bytes."""
    if json_size(body, WHOLE_KEEP) > WHOLE_KEEP:
        return None, json_size(body)
    raw = dump()
    return raw, len(raw) if raw.isascii() else len(raw.encode("utf-8", "replace"))


def dumps(body: Any) -> str:
    """`body` as compact JSON text, as the wire keeps it (what is not JSON as its text)."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), default=str)
