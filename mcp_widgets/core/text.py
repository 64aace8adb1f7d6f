"""Text for people: literal, clipped, kept on one line, numbers and counts as a person reads them (pure).

Server text is untrusted: a control character (a terminal escape), a bidi override or a zero-width character
could disguise it, so `shown` writes each as a visible escape (`\\x1b`, `U+202E`) instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

__all__ = [
    "LITERAL_CLASSES",
    "LOG_KEEP",
    "NAMES_KEEP",
    "byte_size",
    "clip",
    "clip_line",
    "clip_words",
    "number_text",
    "plural",
    "quoted",
    "shorten",
    "shown",
]

LOG_KEEP = 200
"""Log lines a call keeps: buffered between two panel updates, shown in its panel (older ones are counted)."""

LITERAL_CLASSES = ("mathjax_ignore", "tex2jax_ignore")
"""HTML classes MathJax never typesets inside: MathJax 3 (JupyterLab 4, Notebook 7, Voila) and MathJax 2.

Only where typesetting starts counts (the element handed to MathJax, or one inside it): a class on an
element around it does nothing."""

_CONTROL = "\x00-\x08\x0b-\x1f\x7f-\x9f"
"""C0 and C1 controls but tab and newline (carriage return included: on a terminal it overwrites the line)."""
_INVISIBLE = (
    "\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    "\U000e0000-\U000e007f"
)
"""Bidi marks, embeddings, overrides and isolates, zero-width characters, line separators, invisible operators
and the tag characters (invisible copies of ASCII)."""
_UNSHOWABLE = re.compile(f"[{_CONTROL}{_INVISIBLE}]")
_UNSHOWABLE_LINE = re.compile(f"[\t\n{_CONTROL}{_INVISIBLE}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0xA0 else f"U+{code:04X}"


def shown(text: object, *, multiline: bool = True) -> str:
    """`text` with every control, bidi and zero-width character written as a visible escape.

    `\\x1b` for a C0/C1 control, `U+202E` for the others. Newlines and tabs are kept unless `multiline` is
    False; a Windows line end (CR LF) is a newline.
    """
    text = str(text).replace("\r\n", "\n")
    return (_UNSHOWABLE if multiline else _UNSHOWABLE_LINE).sub(_escape, text)


def clip(text: object, limit: int) -> str:
    """`text` cut to `limit` characters, the last of them an ellipsis (a bound for what is kept)."""
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def clip_words(text: object, limit: int) -> str:
    """`text` cut to at most `limit` characters after a whole word, ending "…" (a listing's row: the reader
    finds the rest in its tooltip or its form, so the row never says how much is left out)."""
    text = str(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:  # a word's end not too far back; else (one long word) cut inside it
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def shorten(text: object, limit: int) -> str:
    """`text` cut after `limit` characters, saying how much is left out: "… (N more characters)"."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({plural(len(text) - limit, 'more character')})"


NAMES_KEEP = 300
"""Characters of names a message quotes (a server's 10,000 variables, or one name of 70 KB, stay short)."""


def quoted(names: Iterable[object], limit: int = NAMES_KEEP) -> str:
    """Names quoted and joined ("'a', 'b'"), shortened after `limit` characters as `shorten` does."""
    return shorten(", ".join(repr(n) for n in names), limit)


def clip_line(text: object, limit: int) -> str:
    """`shown(text)` on one line (whitespace runs become one space), shortened after `limit` characters."""
    return shorten(" ".join(shown(text).split()), limit)


def byte_size(n: int, kb_digits: int = 1) -> str:
    """A size as a person reads it: "512 B", "3.4 KB" (`kb_digits` after the point), "1.2 MB"."""
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.{kb_digits}f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def number_text(value: float) -> str:
    """A number as a person reads it: 100 rather than 100.0."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)


def plural(n: Any, word: str) -> str:
    """`n` and `word`, with an "s" unless n is 1: "1 character", "3 characters"."""
    return f"{number_text(n)} {word}" if n == 1 else f"{number_text(n)} {word}s"
