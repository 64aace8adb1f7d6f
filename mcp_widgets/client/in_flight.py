"""A server's calls in flight: the one part that holds them, built first and handed to those that need it.

The runner adds a call when its request starts and removes it when it ends (client thread); a question
(`Intake`) and a log line (`CallDisplay`) find their call here; the display says here when a call ended,
and the parts whose cards end with a call (`Endings`, `UrlFlow`) are told, in the order they were added.
Nothing here points back at those parts: they are callbacks handed in by `parts.assemble`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .record import CallRecord

__all__ = ["CallsInFlight"]


class CallsInFlight:
    """One server's calls in flight, oldest first, and what ends with a call."""

    def __init__(self) -> None:
        self._calls: list[CallRecord] = []
        self.completing = 0
        """Completion requests in flight (client thread): a question outside any call meanwhile is theirs."""
        self.on_end: list[Callable[[CallRecord], None]] = []
        """Told when a call ended (main thread), in order: its open questions, then its URL cards, end."""

    def __iter__(self) -> Iterator[CallRecord]:
        return iter(list(self._calls))  # a copy: a call may end while its caller walks the calls

    def __len__(self) -> int:
        return len(self._calls)

    def add(self, record: CallRecord) -> None:
        """The call's request starts (client thread)."""
        self._calls.append(record)

    def remove(self, record: CallRecord) -> None:
        """The call's request ended (client thread)."""
        self._calls.remove(record)

    @contextlib.contextmanager
    def completion(self) -> Iterator[None]:
        """A completion request is in flight meanwhile (client thread): a question outside any call is
        declined unseen (`Intake.on_elicit`), as it may quote what is being typed."""
        self.completing += 1
        try:
            yield
        finally:
            self.completing -= 1

    def guess(self) -> CallRecord | None:
        """The call a 2025-11-25 request belongs to (the protocol does not say). One call in flight: that
        one; several: of those with no open question, the one that asked fewest (the oldest of them), else
        the newest. Fewest first: a call whose question was just answered is most often finishing, while
        the call beside it has yet to ask (two calls of one tool in flight)."""
        calls = [c for c in self._calls if (c.future is None or not c.future.done()) and not c.ended]
        if not calls:
            return None
        if len(calls) == 1:
            return calls[0]
        idle = [c for c in calls if not c.waiting_for_answer()]
        return min(idle, key=lambda c: c.asked) if idle else calls[-1]

    def ended(self, record: CallRecord) -> None:
        """The call ended (main thread, from `CallDisplay.close_call`): what ends with it ends."""
        for callback in self.on_end:
            callback(record)
