"""Text for people: clipped, kept on one line, numbers and counts as a person reads them (pure)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["clip", "clip_line", "number_text", "plural", "shown"]

_UNSHOWABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Control characters (a terminal escape, say) and bidi overrides: server text could use them to disguise."""


def clip(text: object, limit: int) -> str:
    """`text` cut to `limit` characters, the last of them an ellipsis."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def shown(text: object) -> str:
    """Server text with control characters and bidi overrides replaced by U+FFFD (newlines and tabs kept)."""
    return _UNSHOWABLE.sub("\ufffd", str(text))


def clip_line(text: object, limit: int) -> str:
    """`shown(text)` on one line (whitespace runs become one space), cut to `limit` characters."""
    return clip(" ".join(shown(text).split()), limit)


def number_text(value: float) -> str:
    """A number as a person reads it: 100 rather than 100.0."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)


def plural(n: Any, word: str) -> str:
    """`n` and `word`, with an "s" unless n is 1: "1 character", "3 characters"."""
    return f"{number_text(n)} {word}" if n == 1 else f"{number_text(n)} {word}s"
