"""What the person typed never leaves in a server's echo: errors, log lines, progress and status lines.

A call's typed values are the answers it sent and the secret arguments it was given (see
`core.redaction.is_secret_argument`); `core.redaction` matches them escaped and in any letter case. A
server's log line may arrive after its call ended (2025-11-25 has no request to tie it to): the patterns of
a server's last calls are kept for those, in memory only.
"""

from __future__ import annotations

import asyncio
import re
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from pydantic import ValidationError

from ..core.exceptions import MalformedAnswer, MCPWidgetsError, ServerError
from ..core.redaction import REDACTED, redact_head, resource_label, scrub, secret_values, typed_pattern
from ..core.requests import PendingRequest
from ..core.text import clip_line, shown

__all__ = ["REDACTED", "LateLines", "texts_of", "typed_values"]

_RECENT = 16
"""Ended calls per server whose typed values still redact its late log lines."""

class Typed(Protocol):
    """What redaction reads of a call (`record.CallRecord`): what the person sent in it."""

    answered: list[Any]
    requests: list[PendingRequest]
    secrets: list[Any]

    def describe(self) -> str: ...


def _answers(record: Typed) -> list[Any]:
    values: list[Any] = list(record.answered)
    for request in list(record.requests):
        content = getattr(getattr(request.view, "result", None), "content", None)
        if isinstance(content, Mapping):
            values += list(content.values())
    return values


def typed_values(record: Typed) -> list[Any]:
    """What the person sent in this call: its answers and its secret arguments."""
    return [*_answers(record), *record.secrets]


def texts_of(values: Iterable[Any]) -> frozenset[str]:
    """Typed values as the texts a pattern matches (booleans and None are no one's secret)."""
    return frozenset(str(v) for v in values if not isinstance(v, bool) and v is not None)


def _typed_pattern(record: Typed) -> re.Pattern[str] | None:
    """A pattern matching what the person sent in this call (answers, secret arguments), or None."""
    return typed_pattern(typed_values(record))


def scrubbed(record: Typed, lines: list[str]) -> list[str]:
    """`lines` with what the person typed in this call redacted (a server may echo it in logs)."""
    typed = _typed_pattern(record) if lines else None
    # Only the head a line can show is searched (and kept): a 50 MB message costs what a short one does.
    return [redact_head(line, typed) for line in lines] if typed is not None else lines


def scrubbed_line(record: Typed | None, line: str) -> str:
    return scrubbed(record, [line])[0] if record is not None else line


def scrubbed_progress(record: Typed | None, progress: Any) -> Any:
    """A (progress, total, message) tuple with the typed values redacted from its message."""
    if progress is None or not progress[2]:
        return progress
    return (progress[0], progress[1], scrubbed_line(record, progress[2]))


def redacted_error(record: Typed, error: BaseException) -> BaseException | None:
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


_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,39}")
_OWN_WORDS = ("value_error", "assertion_error")
"""pydantic error types whose message a validator wrote (it may quote the input); others are templates."""


def _malformed(record: Typed, error: ValidationError, what: str = "answer") -> MalformedAnswer:
    """A server's answer failed validation: where and how, without a value from it (nor the raw error)."""
    typed = _typed_pattern(record)
    problems = []
    for item in error.errors(include_url=False, include_input=False, include_context=False)[:5]:
        loc = ".".join(
            str(p) if isinstance(p, int) or _FIELD.fullmatch(str(p)) else "…" for p in item.get("loc", ())
        )
        kind = str(item.get("type", ""))
        how = kind if kind in _OWN_WORDS else str(item.get("msg", kind))
        problems.append(f"{loc or '(top)'}: {how}")
    more = error.error_count() - len(problems)
    text = "; ".join(problems) + (f"; and {more} more" if more > 0 else "")
    if typed is not None:
        text = typed.sub(REDACTED, text)
    text = clip_line(shown(text), 600)
    return MalformedAnswer(f"{record.describe()} failed: the server's {what} was malformed ({text})")


def foreign(record: Typed, error: BaseException) -> BaseException | None:
    """What a call raises instead of `error`, an exception that is not ours (None: raise it as it is).

    A validator's error quotes the server's payload; any other is replaced only when it (or an exception
    it chains to) quotes what the person typed.
    """
    if isinstance(error, (MCPWidgetsError, asyncio.CancelledError)):
        return None
    if isinstance(error, ValidationError):
        return _malformed(record, error)
    typed = _typed_pattern(record)
    if typed is None:
        return None
    texts, todo, seen = [], [error], set()
    while todo:
        exc = todo.pop()
        if id(exc) in seen:
            continue
        seen.add(id(exc))
        if isinstance(exc, ValidationError):
            return _malformed(record, exc)
        texts += [str(exc), repr(exc.args)]
        todo += [e for e in (exc.__cause__, exc.__context__) if e is not None]
        todo += list(getattr(exc, "exceptions", ()))
    if not any(typed.search(text) for text in texts):
        return None
    return MCPWidgetsError(
        f"{record.describe()} failed: {type(error).__name__} (its message quoted what was typed: {REDACTED})"
    )


def quotes_typed(record: Typed, *values: Any) -> bool:
    """True when any of `values` (a server's raw error message, its data) quotes what the person sent.

    The error we raise shows a shortened message: a value quoted past the cut is gone from it, but not
    from the server's own error, which must then not be chained.
    """
    typed = _typed_pattern(record)
    return typed is not None and any(scrub(value, typed) != value for value in values)


class LateLines:
    """A server's last calls' typed values, which still redact its log lines that come after the call
    (2025-11-25 ties a log line to no request). In memory only; one per server."""

    def __init__(self) -> None:
        self._recent: deque[re.Pattern[str]] = deque(maxlen=_RECENT)
        self._texts: deque[frozenset[str]] = deque(maxlen=_RECENT)
        self.version = 0
        """Counts the calls remembered (a reader's cue that `texts()` changed)."""

    def remember(self, record: Typed) -> None:
        """The call is ending: keep its pattern (client thread)."""
        values = typed_values(record)
        typed = typed_pattern(values)
        if typed is not None:
            self._recent.append(typed)
        texts = texts_of([*values, *getattr(record, "typed_inputs", ())])  # a tool form's: for the wire
        if texts:
            self._texts.append(texts)
            self.version += 1

    def texts(self) -> frozenset[str]:
        """What the person sent in the server's last calls, as text (the wire's redaction reads it)."""
        return frozenset().union(*list(self._texts))

    def scrub(self, line: str) -> str:
        """A log line belonging to no call, redacted with the typed values of the server's last calls."""
        for typed in list(self._recent):
            line = redact_head(line, typed)
        return line


def secret_arguments(
    tools: Iterable[Any], kind: str, name: str, arguments: Mapping[str, Any] | None
) -> list[Any]:
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


def resource_name(resources: Iterable[Any], uri: str) -> str:
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
