"""`Completion`: what a server suggests for a prompt argument or a template variable (`completion/complete`).

A server answers with `completion: {values, total?, hasMore?}`; MCP bounds `values` at 100 and so does this
(a server sending more has the rest dropped, and `has_more` says so). Values are the server's text: shown
literally wherever they are drawn. The partial value asked about is never kept here.

A value is kept as sent (what a pick inserts is the server's value itself, spaces, tabs and all); one longer
than `VALUE_CAP` is not offered at all (never cut and inserted cut). Drawn in a list, each is its `labels`
entry: escapes visible, on one line, shortened after `SHOWN_KEEP` characters.
"""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .text import shorten, shown

__all__ = ["MAX_VALUES", "Ask", "Completion", "completion_of"]

MAX_VALUES = 100
"""Values kept of one answer (MCP's own bound)."""

VALUE_CAP = 4096
"""The longest value offered, in characters: a longer one is dropped (a field takes a value whole or not at
all)."""

Ask = Callable[[str, str, Mapping[str, str]], "concurrent.futures.Future[Completion]"]
"""How a form's field asks the server to complete (argument, value so far, the other arguments): a future of
its answer. The client room makes one (`client.completion.Completer.asker`), the widgets room calls it."""

SHOWN_KEEP = 200
"""Characters of a value a list draws (the rest is counted: "… (N more characters)")."""


@dataclass(frozen=True)
class Completion:
    """A server's suggestions for one argument, best first.

    Attributes:
        values: At most 100 values, as the server sent them (text).
        total: How many the server says match in all, when it says (may exceed `len(values)`).
        has_more: The server has more than it sent (or sent more than 100).
    """

    values: list[str] = field(default_factory=list)
    total: int | None = None
    has_more: bool = False

    @property
    def count_text(self) -> str:
        """How many, as a person reads it: "3", "3 of 12", "100 and more", "none"."""
        shown = len(self.values)
        if shown == 0:
            return "none"
        if self.total is not None and self.total > shown:
            return f"{shown} of {self.total}"
        return f"{shown} and more" if self.has_more else str(shown)

    @property
    def labels(self) -> list[str]:
        """Each value as a list draws it: control, bidi and zero-width characters (newlines and tabs too) as
        visible escapes, shortened after `SHOWN_KEEP` characters; spaces as sent."""
        return [shorten(shown(value, multiline=False), SHOWN_KEEP) for value in self.values]

    def __len__(self) -> int:
        return len(self.values)


def completion_of(result: Any) -> Completion:
    """The `Completion` of a `CompleteResult` (the SDK's model or a dict as on the wire): values that are not
    text or are longer than `VALUE_CAP` dropped, at most `MAX_VALUES` kept, a total that is no count
    ignored."""
    if isinstance(result, Mapping):
        completion = result.get("completion")
    else:
        completion = getattr(result, "completion", None)
    if isinstance(completion, Mapping):
        values, total, more = completion.get("values"), completion.get("total"), completion.get("hasMore")
    else:
        values = getattr(completion, "values", None)
        total, more = getattr(completion, "total", None), getattr(completion, "has_more", None)
    texts = [v for v in (values or ()) if isinstance(v, str) and len(v) <= VALUE_CAP]
    clipped = len(texts) > MAX_VALUES
    count = total if isinstance(total, int) and not isinstance(total, bool) and total >= 0 else None
    return Completion(values=texts[:MAX_VALUES], total=count, has_more=bool(more is True or clipped))
