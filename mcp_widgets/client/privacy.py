"""What the person typed never leaves in a server's echo: errors, log lines, progress and status lines.

A call's typed values are the answers it sent and the secret arguments it was given (see
`core.redaction.is_secret_argument`); `core.redaction` matches them escaped and in any letter case. A
server's log line may arrive after its call ended (2025-11-25 has no request to tie it to): the patterns of
a server's last calls are kept for those, in memory only.
"""

from __future__ import annotations

import re
import weakref
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

from ..core.exceptions import ServerError
from ..core.redaction import REDACTED, resource_label, scrub, secret_values, typed_pattern

__all__ = ["REDACTED"]

_RECENT = 16
"""Ended calls per server whose typed values still redact its late log lines."""
_recent: weakref.WeakKeyDictionary[Any, deque[re.Pattern[str]]] = weakref.WeakKeyDictionary()


def _answers(record: Any) -> list[Any]:
    values: list[Any] = list(getattr(record, "answered", ()))
    for request in list(record.requests):
        content = getattr(getattr(request.view, "result", None), "content", None)
        if isinstance(content, Mapping):
            values += list(content.values())
    return values


def _typed_pattern(record: Any) -> re.Pattern[str] | None:
    """A pattern matching what the person sent in this call (answers, secret arguments), or None."""
    return typed_pattern([*_answers(record), *getattr(record, "secrets", ())])


def _scrubbed(record: Any, lines: list[str]) -> list[str]:
    """`lines` with what the person typed in this call redacted (a server may echo it in logs)."""
    typed = _typed_pattern(record) if lines else None
    return [typed.sub(REDACTED, line) for line in lines] if typed is not None else lines


def _scrubbed_line(record: Any, line: str) -> str:
    return _scrubbed(record, [line])[0] if record is not None else line


def _scrubbed_progress(record: Any, progress: Any) -> Any:
    """A (progress, total, message) tuple with the typed values redacted from its message."""
    if progress is None or not progress[2]:
        return progress
    return (progress[0], progress[1], _scrubbed_line(record, progress[2]))


def _redacted(record: Any, error: BaseException) -> BaseException | None:
    """A copy of a server's error without what the person typed, or None when it quotes none of it.

    The copy is raised without the server's own error behind it (a traceback would quote that).
    """
    typed = _typed_pattern(record)
    if typed is None or not isinstance(error, ServerError):
        return None
    text, data = scrub(str(error), typed), scrub(error.data, typed)
    if text == str(error) and data == error.data:
        return None
    return type(error)(text, code=error.code, data=data)


def _quotes_typed(record: Any, *values: Any) -> bool:
    """True when any of `values` (a server's raw error message, its data) quotes what the person sent.

    The error we raise shows a shortened message: a value quoted past the cut is gone from it, but not
    from the server's own error, which must then not be chained.
    """
    typed = _typed_pattern(record)
    return typed is not None and any(scrub(value, typed) != value for value in values)


def _remember(record: Any) -> None:
    """The call is ending: keep its pattern for the server's log lines that come late (client thread)."""
    typed = _typed_pattern(record)
    if typed is not None:
        _recent.setdefault(record.server, deque(maxlen=_RECENT)).append(typed)


def _scrubbed_late(server: Any, line: str) -> str:
    """A log line belonging to no call: redacted with the typed values of the server's last calls."""
    for typed in list(_recent.get(server, ())):
        line = typed.sub(REDACTED, line)
    return line


def _secrets(tools: Iterable[Any], kind: str, name: str, arguments: Mapping[str, Any] | None) -> list[Any]:
    """The secret argument values of a call (a tool's schema marks them; for prompts, their names do)."""
    if not arguments:
        return []
    schema: Any = None
    if kind == "tool":
        for tool in list(tools):
            if getattr(tool, "name", None) == name:
                schema = getattr(tool, "input_schema", None)
                break
    return secret_values(schema, arguments)


def _resource_name(resources: Iterable[Any], uri: str) -> str:
    """What a resource read is called in history, errors and status lines: never a filled-in URI."""
    templates: list[str] = []
    static: list[str] = []
    for item in list(resources):
        template = getattr(item, "uri_template", None)
        if template is not None:
            templates.append(str(template))
        elif getattr(item, "uri", None) is not None:
            static.append(str(item.uri))
    return resource_label(uri, templates, static)
