"""A call's display in its cell: its panel (questions, progress, log), then plain text when it ends."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import mcp_types

from .. import kernel
from ..core.text import clip_line
from . import url_flow
from .calls import _CURRENT
from .privacy import _scrubbed, _scrubbed_late, _scrubbed_line, _scrubbed_progress
from .runtime import _client_loop

if TYPE_CHECKING:
    from .calls import _CallRecord


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
FLUSH_INTERVAL = 0.05
"""Seconds between two updates of a call's progress and log (a chatty server must not flood the frontend)."""


def _label(text: str) -> Any:
    import ipywidgets as w

    return w.Label(value=clip_line(text, 500))


def _show_call(record: _CallRecord, bundle: dict[str, Any]) -> None:
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


def _log_line(params: mcp_types.LoggingMessageNotificationParams) -> str:
    """One line of a server log message: level, logger, and the data (JSON unless it is a string)."""
    data = params.data
    if not isinstance(data, str):
        try:
            data = json.dumps(data, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            data = repr(data)
    source = f" {params.logger}" if params.logger else ""
    return clip_line(f"[{params.level}]{source}: {data}", 2000)


class CallDisplayMixin:
    """`Server`: place forms and text in a call's panel; progress and log lines, coalesced."""

    def _place(self, record: _CallRecord | None, widget: Any) -> None:
        """Show `widget` (or a line of text) in the call's panel (the calling cell, or its `output=`)."""
        panel = record.panel if record is not None else None
        if record is not None and panel is not None and not panel.ended:
            if isinstance(widget, str):
                panel.note(clip_line(_scrubbed_line(record, widget), 500))
            else:
                panel.place(widget)
            self._show_panel(record)
            return
        if self.output is None and kernel.kernel_support() == "none":
            return  # nothing could show it
        if isinstance(widget, str):
            widget = _label(widget)
        if self.output is not None:
            self.output.append_display_data(widget)
        else:
            kernel.display(widget)

    def _show_panel(self, record: _CallRecord) -> None:
        """Show the panel's box in the call's display once it exists (it replaces the text shown before)."""
        box = record.panel.box if record.panel is not None else None
        if box is not None and record.shown is not box:
            record.shown = box
            _show_call(record, box._repr_mimebundle_())

    def _flush(self, record: _CallRecord) -> None:
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
        panel.update(_scrubbed_progress(record, progress), _scrubbed(record, lines), count=count)
        self._show_panel(record)

    def _close_call(self, record: _CallRecord) -> None:
        """The call ended: its display becomes plain text, and every widget model it made is closed.

        Open questions end first (`_end_views`); each question already sent its answer when it resolved,
        so closing its widgets loses nothing. Idempotent: the waiting cell and `_finished` both call it.
        """
        with record.lock:
            if record.ended:
                return
            record.ended = True
            progress, record.progress = record.progress, None
            lines, count = list(record.logs), record.log_count
            record.logs.clear()
        self._end_views(record)
        url_flow._flow(self).call_ended(record)  # URL cards waiting for their page end now, not later
        panel = record.panel
        if panel is None:
            return
        if panel.status is not None:
            panel.set_status(record.status_line())
        progress = _scrubbed_progress(record, progress)
        bundle = panel.end(record.ending(), progress, _scrubbed(record, lines), count=count)
        if record.shown is not None or bundle["text/plain"]:
            record.shown = None
            _show_call(record, bundle)
        if record.status_shown:
            kernel.display_as(
                {"text/plain": record.status_line()}, record.display_id + "-status", update=True
            )

    def _feed(
        self, record: _CallRecord, progress: tuple[float, float | None, str | None] | None, line: str | None
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
        _client_loop().call_soon_threadsafe(
            _client_loop().call_later, delay, record.post, partial(self._flush, record)
        )
        return True

    def _progress_callback(self, record: _CallRecord) -> Any:
        """The call's `progress_callback`, or None when nothing shows the call (the server is not asked)."""
        if record.panel is None:
            return None

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            self._feed(record, (progress, total, message), None)

        return on_progress

    async def _on_log(self, params: mcp_types.LoggingMessageNotificationParams) -> None:
        """A server log message: into the log of the call it belongs to, else the `mcp_widgets` logger.

        Messages below `log_level` are dropped here too: 2025-11-25 servers may ignore logging/setLevel.
        """
        wanted = self.log_level
        level = str(params.level)
        if wanted is None or (level in LOG_LEVELS and LOG_LEVELS.index(level) < LOG_LEVELS.index(wanted)):
            return
        record = _CURRENT.get() or self._guess_call()
        # A 2025-11-25 line may come after its call ended (or be taken for another call's): it may still
        # quote what was typed in one of the server's last calls.
        text = _scrubbed_late(self, _log_line(params))
        if record is not None:
            if self._feed(record, None, text):
                return
            text = _scrubbed(record, [text])[0]  # the panel scrubs its lines when it shows them
        log.log(_PY_LEVELS.get(level, logging.INFO), "%s: %s", self.name, text)
