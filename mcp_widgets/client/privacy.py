"""What the person typed never leaves in a server's echo: errors, log lines, progress and status lines.

A call's typed values are the answers it sent and the secret arguments it was given (see
`core.redaction.is_secret_argument`); `core.redaction` matches them escaped and in any letter case. A
server's log line may arrive after its call ended (2025-11-25 has no request to tie it to): the patterns of
a server's last calls are kept for those, in memory only. A completion request is no call, but what it sends
is typed too (`Completing`): its server's last completion requests redact what it says as a call's do.

The SDK logs what a server sent when it cannot parse it (a stdout line, a notification's params): its
loggers, and ours, get a filter (`guard_logs`) that redacts what was typed in any open server's calls in
flight and its last ended ones (`typed_now`): a record names no server.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import re
import sys
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from ..core.exceptions import MalformedAnswer, MCPWidgetsError, ServerError
from ..core.redaction import (
    REDACTED,
    SPELLED,
    Matcher,
    guard_logger,
    redact_head,
    resource_label,
    scrub,
    secret_values,
    typed_pattern,
)
from ..core.requests import PendingRequest
from ..core.text import clip_line, shown

__all__ = [
    "REDACTED",
    "Completing",
    "LateLines",
    "guard_logs",
    "texts_of",
    "typed_now",
    "typed_values",
    "watched",
]

RECENT = 32
"""Ended calls per server (of those in which something was typed) whose typed values still redact what it
sends later: log lines, the wire, listings (docs/privacy.md says "its last 32 calls")."""


class Typed(Protocol):
    """What redaction reads of a call (`record.CallRecord`): what the person sent in it."""

    answered: list[Any]
    requests: list[PendingRequest]
    secrets: list[Any]

    def describe(self) -> str: ...


def _answers(record: Typed) -> list[Any]:
    values: list[Any] = list(record.answered)
    for request in list(record.requests):
        content = getattr(getattr(request.card, "result", None), "content", None)
        if isinstance(content, Mapping):
            values += list(content.values())
    return values


def typed_values(record: Typed) -> list[Any]:
    """What the person sent in this call: its answers and its secret arguments."""
    return [*_answers(record), *record.secrets]


def texts_of(values: Iterable[Any]) -> frozenset[str]:
    """Typed values as the texts a pattern matches (booleans and None are no one's secret)."""
    return frozenset(str(v) for v in values if not isinstance(v, bool) and v is not None)


def _typed_pattern(record: Typed) -> Matcher | None:
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


class Completing:
    """One completion request (`completion/complete`): no call, but what it sends is typed (the partial
    value, the other fields' text), so it is redacted as a call's answers are (`LateLines.completing`)."""

    def __init__(self, about: str, sent: Iterable[str]) -> None:
        self.about = about
        self.answered: list[Any] = []
        self.requests: list[PendingRequest] = []
        self.secrets: list[Any] = [s for s in sent if s]
        self.typed_inputs: tuple[Any, ...] = ()

    def describe(self) -> str:
        return self.about


class LateLines:
    """A server's last calls' typed values, which still redact its log lines that come after the call
    (2025-11-25 ties a log line to no request), and its last completion requests'. In memory only; one per
    server."""

    def __init__(self) -> None:
        self._recent: deque[Matcher] = deque(maxlen=RECENT)
        self._texts: deque[frozenset[str]] = deque(maxlen=RECENT)
        self._completed: deque[frozenset[str]] = deque(maxlen=RECENT)
        """What the last completion requests sent: apart from the calls', so typing does not push a call's
        values out."""
        self.version = 0
        """Counts the calls and completions remembered (a reader's cue that `texts()` changed)."""

    def completing(self, request: Completing) -> None:
        """A completion request is about to be sent (client thread): from now on what it sends redacts
        what the server says (its log lines, the wire, the SDK's and our log records, listings)."""
        texts = texts_of(request.secrets)
        if not texts:
            return
        longer = [t for t in texts if len(t) > SPELLED]
        if longer:  # a long value typed on: its earlier spellings are runs of the newer (matched as such)
            kept = (
                frozenset(t for t in old if len(t) <= SPELLED or not any(t in new for new in longer))
                for old in self._completed
            )
            self._completed = deque((old for old in kept if old), maxlen=RECENT)
        self._completed.append(texts)
        self.version += 1

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
        return frozenset().union(*list(self._texts), *list(self._completed))

    def scrub(self, line: str) -> str:
        """A log line belonging to no call, redacted with the typed values of the server's last calls and
        completion requests."""
        for typed in list(self._recent):
            line = redact_head(line, typed)
        completed = frozenset().union(*list(self._completed))
        return redact_head(line, typed_pattern(completed)) if completed else line


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


# -- what was typed lately, for records that name no server ----------------------------------------------


class Recent:
    """What was typed in a server's calls in flight and its last ended ones."""

    def __init__(self, late: LateLines, calls: Callable[[], Iterable[Any]]) -> None:
        self._late = late
        self._calls = calls
        self._pattern: tuple[frozenset[str], Matcher | None] = (frozenset(), None)

    def pattern(self) -> Matcher | None:
        """As one pattern (None: nothing was typed)."""
        texts = self.typed_texts()
        if texts != self._pattern[0]:
            self._pattern = (texts, typed_pattern(texts) if texts else None)
        return self._pattern[1]

    def typed_texts(self) -> frozenset[str]:
        """As text (any thread)."""
        late = self._late.texts()
        calls = list(self._calls())
        if not calls:
            return late
        return late.union(*(texts_of([*typed_values(r), *r.typed_inputs]) for r in calls))


_WATCHED: weakref.WeakSet[Recent] = weakref.WeakSet()
_WATCHING = threading.Lock()
"""Servers are made on the main thread while the client thread's records read `_WATCHED`."""
_pattern: tuple[frozenset[str], Matcher | None] = (frozenset(), None)


def watched(late: LateLines, calls: Callable[[], Iterable[Any]]) -> Recent:
    """A server's typed values (`late`, and those of its `calls` in flight), which redact every log record
    while the returned object is held (a server's connection holds it); our logger and the SDK's are
    guarded (`guard_logs`)."""
    recent = Recent(late, calls)
    with _WATCHING:
        _WATCHED.add(recent)
    guard_logs()
    return recent


def typed_now() -> Matcher | None:
    """What was typed in every watched server's calls in flight and its last ended ones, as one pattern."""
    global _pattern
    texts: frozenset[str] = frozenset()
    with _WATCHING:
        sources = list(_WATCHED)
    for source in sources:
        texts = texts.union(source.typed_texts())
    cached = _pattern
    if texts != cached[0]:
        cached = _pattern = (texts, typed_pattern(texts) if texts else None)
    return cached[1]


def _sdk_loggers() -> list[logging.Logger]:
    """The SDK's loggers: those named under `mcp`, and each of its modules' own (its session's is named
    "client")."""
    found = {
        name: logger
        for name, logger in list(logging.Logger.manager.loggerDict.items())
        if (name == "mcp" or name.startswith("mcp.")) and isinstance(logger, logging.Logger)
    }
    for name, module in list(sys.modules.items()):
        if name == "mcp" or name.startswith("mcp."):
            for attr in ("logger", "_logger", "log"):
                logger = getattr(module, attr, None)
                if isinstance(logger, logging.Logger):
                    found[logger.name] = logger
    return list(found.values())


def guard_logs() -> None:
    """Our logger and the SDK's redact what was typed (`typed_now`) and URL credentials. A filter on each
    logger, not on a parent: a parent's filters do not see its children's records. Called for each server
    made (the SDK may have made a logger since: importing the client imports its transports)."""
    for logger in [logging.getLogger("mcp_widgets"), *_sdk_loggers()]:
        guard_logger(logger, typed_now)


# -- listings ----------------------------------------------------------------------------------------------


def _key(raw: Mapping[str, Any]) -> str:
    """What an item of a listing is called by: a template's URI template, a resource's URI, else its name."""
    for field in ("uriTemplate", "uri", "name"):
        if isinstance(raw.get(field), str):
            return str(raw[field])
    return ""


def _digest(raw: Any) -> str:
    return hashlib.sha256(json.dumps(raw, sort_keys=True, default=str).encode()).hexdigest()


def redacted_listing(
    items: Iterable[BaseModel], typed: Matcher | None, clean: frozenset[str] = frozenset()
) -> tuple[list[Any], dict[str, str], frozenset[str]]:
    """A listing's items with what was typed redacted (names, titles, descriptions, schemas: every string),
    the server's own name of each renamed item by the name it is listed under, and the digests of the
    items shown as sent.

    An item the server sent before exactly as it was shown then (its digest in `clean`) is kept: it was
    listed before it could quote the value (typing `file` does not rename `read_file`). A renamed item is
    listed under its name with the value redacted (`greet_[redacted]`), with " (2)", " (3)"... after it
    when another item is listed so; calls by that name reach the server's own (`ToolList.real_name`).
    """
    raws = [(item, item.model_dump(mode="json", by_alias=True, exclude_unset=True)) for item in items]
    digests = [_digest(raw) for _, raw in raws]
    shown: list[Any] = []
    kept: set[str] = set()
    changed: dict[int, dict[str, Any]] = {}
    for i, ((_, raw), digest) in enumerate(zip(raws, digests, strict=True)):
        scrubbed_raw = scrub(raw, typed) if typed is not None and digest not in clean else raw
        if scrubbed_raw == raw:
            kept.add(digest)
        else:
            changed[i] = scrubbed_raw
    taken = {_key(raw) for i, (_, raw) in enumerate(raws) if i not in changed}
    real: dict[str, str] = {}
    for i, (item, raw) in enumerate(raws):
        if i not in changed:
            shown.append(item)
            continue
        new = changed[i]
        listed = base = _key(new)
        n = 1
        while listed in taken:
            n += 1
            listed = f"{base} ({n})"
        taken.add(listed)
        for field in ("uriTemplate", "uri", "name"):
            if new.get(field) == base:
                new[field] = listed
                break
        if listed != _key(raw):
            real[listed] = _key(raw)
        try:
            shown.append(type(item).model_validate(new))
        except ValidationError:  # the redacted text broke the item's own rules: left out, not shown raw
            real.pop(listed, None)
    return shown, real, frozenset(kept)
