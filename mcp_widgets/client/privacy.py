"""What the person typed never leaves in a server's echo: errors and log lines are redacted."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .calls import _CallRecord


REDACTED = "[redacted]"
"""Stands in for a typed value quoted in a server's error."""


def _typed_pattern(record: _CallRecord) -> re.Pattern[str] | None:
    """A pattern matching what the person sent in this call's answers (values of 2+ characters), or None."""
    values: set[str] = set()
    for request in list(record.requests):
        content = getattr(getattr(request.view, "result", None), "content", None)
        if not isinstance(content, Mapping):
            continue
        for value in content.values():
            for item in value if isinstance(value, list) else [value]:
                if not isinstance(item, bool) and len(str(item)) >= 2:
                    values.add(str(item))
    if not values:
        return None
    # Whole tokens only, so a short value does not cut words of the message apart.
    alternatives = "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")


def _scrub(data: Any, typed: re.Pattern[str]) -> Any:
    """`data` (JSON-like) with every string match of `typed` replaced, and numbers equal to one dropped."""
    if isinstance(data, str):
        return typed.sub(REDACTED, data)
    if isinstance(data, Mapping):
        return {_scrub(k, typed): _scrub(v, typed) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_scrub(v, typed) for v in data]
    if isinstance(data, (int, float)) and not isinstance(data, bool) and typed.fullmatch(str(data)):
        return REDACTED
    return data


def _scrubbed(record: _CallRecord, lines: list[str]) -> list[str]:
    """`lines` with what the person typed in this call's answers redacted (a server may echo it in logs)."""
    typed = _typed_pattern(record) if lines else None
    return [typed.sub(REDACTED, line) for line in lines] if typed is not None else lines
