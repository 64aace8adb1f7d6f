"""JSON with comments (VS Code's JSONC) from a file that may be anyone's, read with bounded work (pure).

Imports only the standard library. `read_text` opens without blocking (a FIFO would wait for a writer) and
reads only a regular file within a size bound; `loads` parses plain JSON at once and strips comments and
trailing commas only when that fails, in one linear pass; `position` says where JSON is broken without
quoting the text (a line of a config could hold a secret).
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path
from typing import Any

__all__ = ["Unreadable", "loads", "position", "read_text", "strip"]


class Unreadable(ValueError):
    """Why a file was not read, as the words that follow its path ("cannot be read: not a regular file")."""


def read_text(path: Path, limit: int) -> str:
    """The UTF-8 text of the regular file `path`, if it has at most `limit` bytes.

    Raises:
        Unreadable: It cannot be opened, is not a regular file (a FIFO, a folder), is over `limit`
            bytes, or is not UTF-8.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise Unreadable(f"cannot be read: {exc.strerror or type(exc).__name__}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable("cannot be read: not a regular file")
        if info.st_size > limit:
            raise Unreadable(f"is {_mb(info.st_size)}: a config file over {_mb(limit)} is not read")
        with os.fdopen(fd, "rb") as file:
            fd = -1
            raw = file.read(limit + 1)
    except OSError as exc:
        raise Unreadable(f"cannot be read: {exc.strerror or type(exc).__name__}") from None
    finally:
        if fd >= 0:
            os.close(fd)
    if len(raw) > limit:  # it grew after fstat
        raise Unreadable(f"is over {_mb(limit)}: a config file that big is not read")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"is not UTF-8 text (byte {exc.start})") from None


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"


def position(exc: ValueError) -> str:
    """A JSON error without the text around it (a line of the file could hold a secret)."""
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at line {exc.lineno}, column {exc.colno}"
    return type(exc).__name__


# One pass, each alternative matching wherever it starts (an unterminated string ends at its line's end or
# the text's, an unterminated comment at the text's end), so the scan never starts again from a later
# character: linear in the text's length (a retried `/\*.*?\*/` made `/*a` repeated quadratic). Possessive
# loops give nothing back.
_STRING = r'"(?:[^"\\\n]++|\\.)*+(?:"|(?=\n)|\\?\Z)'
_COMMENTS = re.compile(_STRING + r"|//[^\n]*+|/\*(?:[^*]++|\*(?!/))*+(?:\*/|\Z)", re.S)
_TRAILING_COMMAS = re.compile(_STRING + r"|,(?=\s*+[}\]])", re.S)


def loads(text: str) -> Any:
    """JSON, or VS Code's JSON with comments and trailing commas (stripped only when plain JSON fails).

    Raises:
        json.JSONDecodeError: Not JSON even without comments (its line and column are the text's).
        RecursionError: Nested too deeply for the parser.
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return json.loads(strip(text))


def strip(text: str) -> str:
    """VS Code's JSON with comments and trailing commas -> JSON (strings kept as they are).

    A comment becomes blanks of its shape (its newlines kept), so a JSON error's line and column are the
    file's; then a comma before `}` or `]` (comments between them included) becomes a blank."""
    return _TRAILING_COMMAS.sub(_comma, _COMMENTS.sub(_blank, text))


def _blank(match: re.Match[str]) -> str:
    part = match.group()
    if part.startswith('"'):
        return part
    lines = part.count("\n")
    return " " * len(part) if not lines else "\n" * lines + " " * (len(part) - part.rfind("\n") - 1)


def _comma(match: re.Match[str]) -> str:
    part = match.group()
    return part if part.startswith('"') else " "
