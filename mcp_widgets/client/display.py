"""A call's display in its cell: its panel (questions, progress, log), then plain text when it ends.

What is shown outside any call (a server asking between calls) is kept here too (`LooseForms`): inside a
call its panel retires answered forms; outside one, a form's closing line is shown in the server's `output=`
or the cell that was current, and nothing else would ever close it: a server asking again and again between
calls would pile up widget models. The same goes for an ended URL card no call holds and for a line about a
request that could not be shown. The newest few stay, the rest close; `srv.close()` closes those kept.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import mcp_types

from .. import kernel
from ..core.text import clip_line
from .privacy import LateLines, scrubbed, scrubbed_line, scrubbed_progress
from .record import CURRENT_CALL
from .results import result_bundles
from .runtime import RUNTIME

if TYPE_CHECKING:
    from mcp.shared.dispatcher import ProgressFnT

    from .context import ServerContext
    from .in_flight import CallsInFlight
    from .record import CallRecord


log = logging.getLogger("mcp_widgets")


DEFAULT_LOG_LEVEL = "info"
"""The server log messages a connection asks for by default (`connect(..., log_level=...)`; None: none)."""
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_PY_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}
PROGRESS_KEEP = 2000
"""Characters of a progress message shown (a server may send megabytes)."""
FLUSH_INTERVAL = 0.05
"""Seconds between two updates of a call's progress and log (a chatty server must not flood the frontend)."""


def _label(text: str) -> Any:
    from ..widgets import text_line

    return text_line(clip_line(text, 500))


def show_call(record: CallRecord, bundle: dict[str, Any]) -> None:
    """Show `bundle` as the call's output, replacing what the call showed before (main thread).

    In a cell: an update of the display made when the call started. In an `output=` widget: the call's
    entry in its outputs (found by its marker), appended the first time.
    """
    out = record.out
    if out is None:
        kernel.display_as(bundle, record.display_id, update=True)
        return
    entry = {
        "output_type": "display_data",
        "data": bundle,
        "metadata": {"mcp_widgets_call": record.display_id},
    }
    outputs = list(out.outputs)
    for i, old in enumerate(outputs):
        if (
            isinstance(old, Mapping)
            and (old.get("metadata") or {}).get("mcp_widgets_call") == record.display_id
        ):
            outputs[i] = entry
            break
    else:
        outputs.append(entry)
    out.outputs = tuple(outputs)


def _log_line(
    params: mcp_types.LoggingMessageNotificationParams, redact: Callable[[str], str] = lambda line: line
) -> str:
    """One line of a server log message: level, logger, and the data (JSON unless it is a string),
    `redact`ed before it is clipped."""
    data = params.data
    if not isinstance(data, str):
        try:
            data = json.dumps(data, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            data = repr(data)
    source = f" {params.logger}" if params.logger else ""
    return clip_line(redact(f"[{params.level}]{source}: {data}"), 2000)


def _result_shown(record: CallRecord) -> tuple[list[str], list[dict[str, str]]]:
    """A finished background call's result: its text, for under its status line (as #18: no answer
    echoed), and its images and audio as the awaited result shows them (`result_bundles`), in order."""
    fut = record.future
    if fut is None or not fut.done() or fut.cancelled() or fut.exception() is not None:
        return [], []
    lines: list[str] = []
    media: list[dict[str, str]] = []
    for bundle in result_bundles(fut.result()):
        if list(bundle) == ["text/plain"]:
            lines.extend(bundle["text/plain"].splitlines())
        else:  # its text line is ours ("[image: image/png, 2 KB]"), the data the server's, checked
            media.append({**bundle, "text/plain": scrubbed_line(record, bundle["text/plain"])})
    return scrubbed(record, lines), media


def _show_media(record: CallRecord, media: list[dict[str, str]]) -> None:
    """Show a finished call's images and audio under its closing text: in its `output=` (after the call's
    entry), else as displays of their own in the calling cell (main thread, in that cell's context)."""
    out = record.out
    if out is None:
        for i, bundle in enumerate(media):
            kernel.display_as(bundle, f"{record.display_id}-media-{i}")
        return
    marker = {"mcp_widgets_media": record.display_id}
    entries = [{"output_type": "display_data", "data": bundle, "metadata": marker} for bundle in media]
    out.outputs = (*out.outputs, *entries)


class CallDisplay:
    """A server's call displays: forms and text in a call's panel; progress and log lines, coalesced."""

    def __init__(self, ctx: ServerContext, calls: CallsInFlight) -> None:
        self.ctx = ctx
        self.calls = calls
        """The calls in flight: a log line finds its call there; a call's end is said there."""
        self.late = LateLines()
        """The server's last calls' typed values: its log lines that come late are redacted with them."""
        self.loose = LooseForms()
        """What is shown outside any call (answered forms, ended cards, notes): the newest stay, closed with
        the server."""

    def place(self, record: CallRecord | None, widget: Any) -> None:
        """Show `widget` (or a line of text) in the call's panel (the calling cell, or its `output=`)."""
        panel = record.panel if record is not None else None
        if record is not None and panel is not None and not panel.ended:
            if isinstance(widget, str):
                panel.note(clip_line(scrubbed_line(record, widget), 500))
            else:
                panel.place(widget)
            self._show_panel(record)
            return
        from ..widgets import Note

        if isinstance(widget, Note):  # a line of a call's panel whose call ended meanwhile: it holds no more
            return
        output = self.ctx.settings.output
        if output is None and kernel.kernel_support() == "none":
            return  # nothing could show it
        if isinstance(widget, str):
            widget = _label(widget)
            self.loose.keep(widget)  # nothing else would ever close it
        if output is not None:
            output.append_display_data(widget)
        else:
            kernel.display(widget)

    def _show_panel(self, record: CallRecord) -> None:
        """Show the call's line in the call's display once it exists (it replaces the text shown before)."""
        line = record.panel.shown if record.panel is not None else None
        if line is not None and record.shown is not line:
            record.shown = line
            show_call(record, kernel.bundle_of(line))

    def show_in_marimo(self, record: CallRecord) -> None:
        """A background call in marimo: its line is one anywidget, shown by the cell that starts the call and
        kept up to date from any thread afterwards (marimo renders no composed display, and drops new output
        made after the cell returned; a model already shown redraws). Nothing elsewhere."""
        if not kernel.in_marimo():
            return
        from ..widgets import CallLine, CallPanel

        status = record.status_line()
        line = CallLine(status=status, echo_end=True)
        record.panel = CallPanel(status=status, line=line)
        record.on_status = partial(self.show_status, record)
        record.element = kernel.ui_element(line)  # shown as a UI element: `Call.ui` is this very one
        kernel.display(record.element)

    def show_status(self, record: CallRecord) -> None:
        """Show a background call's status line again, wherever it is shown (main thread)."""
        panel = record.panel
        if record.ended or panel is None or panel.status is None:
            return
        text = record.status_line()
        panel.set_status(text)
        if record.shown is None:  # the call's display still holds the line as text
            show_call(record, {"text/plain": text})
        if record.status_shown:
            kernel.display_as({"text/plain": text}, record.display_id + "-status", update=True)

    def flush(self, record: CallRecord) -> None:
        """Show the progress and log lines that arrived since the last update (posted by `_feed`)."""
        with record.lock:
            record.flush_due = False
            record.flushed_at = time.monotonic()
            if record.ended:
                return
            progress, record.progress = record.progress, None
            lines, count = list(record.logs), record.log_count
            record.logs.clear()
            record.log_count = 0
        panel = record.panel
        if panel is None or panel.ended:
            return
        panel.update(scrubbed_progress(record, progress), scrubbed(record, lines), count=count)
        self._show_panel(record)

    def close_call(self, record: CallRecord, *, returned: bool = False) -> None:
        """The call ended: its display becomes plain text, and every widget model it made is closed.

        Open questions end first (`CallsInFlight.ended`, then `Endings.call_ended`); each question already
        sent its answer when it resolved, so closing its widgets loses nothing. Idempotent: the waiting cell
        and the call's end both call it; when the waiting cell does (`returned`: it gets the result), a
        background call's images are left to it.
        """
        with record.lock:
            if record.ended:
                return
            record.ended = True
            progress, record.progress = record.progress, None
            lines, count = list(record.logs), record.log_count
            record.logs.clear()
        self.calls.ended(record)  # its open questions and URL cards end first
        panel = record.panel
        if panel is None:
            return
        result: list[str] = []
        media: list[dict[str, str]] = []
        if panel.status is not None:
            panel.set_status(record.status_line())
            if record.shows_result:
                result, media = _result_shown(record)
        progress = scrubbed_progress(record, progress)
        bundle = panel.end(record.ending(), progress, scrubbed(record, lines), count=count, result=result)
        if record.shown is not None or bundle["text/plain"]:
            record.shown = None
            show_call(record, bundle)
        if media and not returned:  # else the caller has the result and shows it (media too) itself
            _show_media(record, media)
        if record.status_shown:
            kernel.display_as(
                {"text/plain": record.status_line()}, record.display_id + "-status", update=True
            )

    def feed(
        self, record: CallRecord, progress: tuple[float, float | None, str | None] | None, line: str | None
    ) -> bool:
        """Buffer a progress notification or a log line for the call's panel; False once the call ended.

        At most one update is posted per FLUSH_INTERVAL: the panel shows the newest progress and every
        buffered line at once.
        """
        with record.lock:
            if record.ended or record.panel is None:
                return False
            if progress is not None:
                record.progress = progress
            if line is not None:
                record.logs.append(line)
                record.log_count += 1
            if record.flush_due:
                return True
            record.flush_due = True
            delay = max(0.0, record.flushed_at + FLUSH_INTERVAL - time.monotonic())
        RUNTIME.loop().call_soon_threadsafe(
            RUNTIME.loop().call_later, delay, record.post, partial(self.flush, record)
        )
        return True

    def progress_callback(self, record: CallRecord) -> ProgressFnT | None:
        """The call's `progress_callback`, or None when nothing shows the call (the server is not asked)."""
        if record.panel is None:
            return None

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            # Redacted before it is clipped (as a log line is): a cut could leave the start of a typed value.
            line = None if message is None else clip_line(scrubbed_line(record, message), PROGRESS_KEEP)
            self.feed(record, (progress, total, line), None)

        return on_progress

    async def on_log(self, params: mcp_types.LoggingMessageNotificationParams) -> None:
        """A server log message: into the log of the call it belongs to, else the `mcp_widgets` logger.

        Messages below `log_level` are dropped here too: 2025-11-25 servers may ignore logging/setLevel.
        """
        wanted = self.ctx.settings.log_level
        level = str(params.level)
        if wanted is None or (level in LOG_LEVELS and LOG_LEVELS.index(level) < LOG_LEVELS.index(wanted)):
            return
        record = CURRENT_CALL.get() or self.calls.guess()
        # A 2025-11-25 line may come after its call ended (or be taken for another call's): it may still
        # quote what was typed in one of the server's last calls.
        # Redacted before `_log_line` clips it: a cut could leave the start of a typed value.
        text = _log_line(params, lambda line: scrubbed_line(record, self.late.scrub(line)))
        if record is not None and self.feed(record, None, text):
            return
        log.log(_PY_LEVELS.get(level, logging.INFO), "%s: %s", self.ctx.name, text)


LOOSE_KEEP = 20
"""How many answered out-of-call forms keep their closing line (the newest), as a call's panel does."""


class LooseForms:
    """The answered forms (and ended cards, and notes) of one server that no call holds."""

    def __init__(self, keep: int = LOOSE_KEEP) -> None:
        self._kept: deque[Any] = deque()
        self._keep = keep
        self._lock = threading.Lock()
        self._closed = False

    def keep(self, form: Any) -> None:
        """Hold `form` (answered, shown); close the oldest beyond the bound (all, once the server closed:
        a form withdrawn by the close may finish after it)."""
        with self._lock:
            self._kept.append(form)
            keep = 0 if self._closed else self._keep
            old = [self._kept.popleft() for _ in range(max(0, len(self._kept) - keep))]
        for form_ in old:
            form_.close()

    def close_all(self) -> None:
        with self._lock:
            kept, self._kept = list(self._kept), deque()
            self._closed = True
        for form in kept:
            form.close()

    def reopen(self) -> None:
        """The server connected again: keep forms again."""
        with self._lock:
            self._closed = False
