"""CallPanel: what one call shows in its cell while it runs, and the plain text it leaves when it ends.

A call shows nothing until there is something to show: a question (form, URL card), a note, progress or a
log message. Then one VBox holds, top to bottom: the call's line (`CallLine`, one anywidget: a background
call's status line, the progress bar and its line, the collapsed log), and the questions. When the call
ends, `end` returns the closing text (a status line, each question's one line, the final progress line, the
log) and closes every model the call made: nothing of a finished call stays alive in the kernel or the
browser.

Server text (progress messages, log data) is plain text everywhere: Labels, the line's textContent, and
`html.escape` in the closing HTML.
"""

from __future__ import annotations

import html
import re
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any, Literal

import ipywidgets as w

from ..core.text import LITERAL_CLASSES, LOG_KEEP, shown
from ._call_line import CallLine
from ._kit import WRAP_CLASS, Kit

__all__ = ["CallPanel", "Ending"]

Ending = Literal["done", "failed", "cancelled"]
Progress = tuple[float, float | None, str | None]
"""(progress, total, message) of a progress notification."""

ANSWERED_KEEP = 1
"""Answered forms kept as they are; older ones become their closing line (a Label) and are closed."""
LINES_KEEP = 20
"""Closing lines of answered questions kept live; older ones are counted in one line."""
_LOG_ROWS = 8


def _num(value: float) -> str:
    return f"{value:g}"


def progress_text(progress: float, total: float | None, message: str | None) -> str:
    """One line for a progress notification: the message, the count, and a percentage if there is a total.

    A count the message already says ("step 1 of 4") is not repeated: "step 1 of 4 (25%)".
    """
    message = " ".join((message or "").split())
    said = set(re.findall(r"\d+(?:\.\d+)?", message))
    if total is not None and total > 0:
        percent = max(0, min(100, int(100 * progress / total)))
        count = f"{_num(progress)}/{_num(total)}, {percent}%"
        if {_num(progress), _num(total)} <= said:
            count = f"{percent}%"
    else:
        count = "" if _num(progress) in said else _num(progress)  # no total: how far, not how much is left
    if not message:
        return f"({count})"
    return f"{message} ({count})" if count else message


def text_line(text: str, kit: Kit | None = None) -> w.Label:
    """A line of plain text, as a panel's note (made by the panel's `kit`) or shown outside any panel; its
    Layout and Style are the shared ones: closing it leaves nothing open."""
    return (kit or Kit()).make(w.Label, value=text, tooltip=text, _dom_classes=(WRAP_CLASS,))


class CallPanel:
    """The live view of one call (main thread only). No widget model exists until something is shown.

    Args:
        status: A background call's status line (plain text until the panel needs its box).
        line: Where the panel mirrors itself as one model (marimo, which renders no composed display).
    """

    def __init__(self, *, status: str | None = None, line: CallLine | None = None) -> None:
        self.call_line = line
        """The call's line as one anywidget (status, progress, log), made with the box; or given (marimo):
        then it shows the placed questions too, and outlives the panel as the cell's output."""
        self._given_line = line is not None
        self._kit: Kit | None = None
        self.box: w.VBox | None = None
        """The VBox shown in the cell, or None while nothing needed one."""
        self.status = status
        self._placed: list[w.Widget] = []
        self._passing: list[w.Widget] = []
        """Lines placed that the closing text leaves out (`line(lasting=False)`)."""
        self._answered: list[w.Widget] = []
        """Answered forms still shown as forms (at most ANSWERED_KEEP)."""
        self._retired: deque[w.Label] = deque()
        """Closing lines of older answered questions, oldest first (at most LINES_KEEP)."""
        self._earlier = 0
        """Answered questions whose line was dropped too (a runaway server asks thousands)."""
        self._earlier_label: w.Label | None = None
        self._progress: Progress | None = None
        self._log_lines: deque[str] = deque(maxlen=LOG_KEEP)
        self._log_count = 0
        self.ended = False

    # -- building (lazily) -----------------------------------------------------------------------------------
    def _ensure_box(self) -> w.VBox:
        if self.box is None:
            self._kit = Kit()
            self.box = self._kit.make(w.VBox, _dom_classes=("mcp-widgets-call",))
        return self.box

    def _label(self, text: str) -> w.Label:
        assert self._kit is not None
        return text_line(text, self._kit)

    def _head(self) -> tuple[w.Widget, ...]:
        """The line at the head of the box, once it has something to say (a question alone needs none).

        Made only then: a quick call that shows only a note (an unlisted tool, then its error) opened and
        closed the line's model at once, and a page still loading that anywidget when it closed reports
        "Failed to initialize model" as an uncaught error (seen under a full test run's load).
        """
        said = self.status is not None or self._progress is not None or self._log_count > 0
        if not said or self._given_line:
            return ()
        if self.call_line is None and self._kit is not None:  # the shared Layout: closing leaves nothing
            self.call_line = self._kit.track(CallLine(layout=self._kit.layout()))
            self._mirror()
        return (self.call_line,) if self.call_line is not None else ()

    def _refresh(self) -> None:
        assert self.box is not None
        self.box.children = (*self._head(), *self._placed)

    # -- what the client feeds it ----------------------------------------------------------------------------
    def place(self, widget: w.Widget) -> w.VBox:
        """Show `widget` (a form, a URL card, a note) below what is there; returns the box."""
        box = self._ensure_box()
        self._placed.append(widget)
        self._refresh()
        self._mirror()
        return box

    def line(self, text: str, *, lasting: bool = True) -> w.Label:
        """A line of plain text on the panel's shared Layout and Style (place it; `drop` closes it).

        A line that comes and goes (a round's time left, a task's status) is made here: a Label of its own
        would bring its own Layout and Style models, and a runaway server's thousands of rounds leak them.
        Not `lasting`: the line holds only while the call runs (a round's time left), and the closing text
        leaves it out, however the call ended (an interrupt ends it before the line could go).
        """
        self._ensure_box()
        label = self._label(text)
        if not lasting:
            self._passing.append(label)
        return label

    def drop(self, widget: w.Widget) -> None:
        """Take away and close a line placed here that no longer holds (a round's time left, answered)."""
        if self.ended or not any(p is widget for p in self._placed):
            return
        self._placed = [p for p in self._placed if p is not widget]
        self._passing = [p for p in self._passing if p is not widget]
        widget.close()
        if self._kit is not None:  # forgotten too: thousands of rounds must not grow the kit's list
            self._kit.models = [m for m in self._kit.models if m is not widget]
        if self.box is not None:
            self._refresh()
        self._mirror()

    def note(self, text: str) -> w.VBox:
        """Show a line of plain text (a refused request, a failed handler, a hint)."""
        self._ensure_box()
        return self.place(self._label(text))

    def retire(self, widget: w.Widget) -> None:
        """`widget` (a form) was answered: the newest answered forms stay; older ones are closed and leave
        their closing line, and only the newest LINES_KEEP lines stay (the rest are counted)."""
        if self.ended or not any(p is widget for p in self._placed):
            return
        self._answered.append(widget)
        while len(self._answered) > ANSWERED_KEEP:
            old = self._answered.pop(0)
            label = self._label(_line_of(old) or "")
            self._placed = [label if p is old else p for p in self._placed]
            old.close()
            self._retired.append(label)
        while len(self._retired) > LINES_KEEP:
            dropped = self._retired.popleft()
            self._placed = [p for p in self._placed if p is not dropped]
            dropped.close()
            self._earlier += 1
        if self._earlier:
            text = f"… {self._earlier} earlier questions answered"
            if self._earlier_label is None:
                self._earlier_label = self._label(text)
                self._placed.insert(0, self._earlier_label)
            else:
                self._earlier_label.value = self._earlier_label.tooltip = text
        self._refresh()
        self._mirror()

    def set_status(self, text: str) -> None:
        self.status = text
        self._mirror()

    def _take(self, progress: Progress | None, log: Sequence[str], count: int | None) -> None:
        if progress is not None:
            self._progress = progress
        if log:
            self._log_lines.extend(log)
            self._log_count += max(len(log), count or 0)

    def update(
        self, progress: Progress | None = None, log: Sequence[str] = (), *, count: int | None = None
    ) -> w.VBox | None:
        """Show the newest progress and append log lines; returns the box (None when there was nothing).

        Args:
            progress: (progress, total, message) of the newest notification.
            log: New log lines.
            count: How many log messages arrived, when some of them were dropped on the way.
        """
        if progress is None and not log:
            return self.box
        shown = self._head() if self.box is not None else ()
        self._take(progress, log, count)
        box = self._ensure_box()
        if self._head() != shown:
            self._refresh()
        self._mirror()
        return box

    def _log_title(self) -> str:
        n = self._log_count
        return f"Log ({n} message{'' if n == 1 else 's'})"

    # -- the end ---------------------------------------------------------------------------------------------
    def end(
        self,
        how: Ending,
        progress: Progress | None = None,
        log: Sequence[str] = (),
        *,
        count: int | None = None,
        result: Sequence[str] = (),
    ) -> dict[str, Any]:
        """Close every model of the call and return the closing text as a display bundle.

        `progress` and `log` are the last updates (not shown live: no widget is built for them). The lines
        follow the call: each question's line, the progress, then a background call's status line and
        `result` (its lines) under it. The bundle has "text/plain" (and "text/html" with a collapsed log
        when there is one); its text is empty when the call had nothing to say.
        """
        self._take(progress, log, count)
        self.ended = True
        lines: list[str] = []
        for widget in self._placed:
            if any(p is widget for p in self._passing):
                continue
            line = _line_of(widget)
            if line:
                lines.append(line)
        if self._progress is not None:
            lines.append(f"Progress: {how} — {progress_text(*self._progress)}")
        if self.status:
            lines.append(self.status)
            lines.extend(result)
        log = list(self._log_lines)
        log_head = self._log_title() if self._log_count else ""
        if self._log_count > len(log):
            log.insert(0, f"… {self._log_count - len(log)} earlier messages not kept")
        if self._given_line:  # it stays as the cell's output: it ends as the closing text says
            self._mirror(ended=how, result=result)
        self.close()
        return closing_bundle(lines, log_head, log)

    def _mirror(self, *, ended: Ending | None = None, result: Sequence[str] = ()) -> None:
        """Make the call's line say what the panel shows, in one update of its model. A given line (marimo)
        shows the placed questions too: their closing lines, and the open ones it can draw."""
        line = self.call_line
        if line is None:
            return
        placed = [p for p in self._placed if not any(p is q for q in self._passing)]
        with line.hold_sync():
            line.status = self.status or ""
            if self._progress is not None:
                value, total, _message = self._progress
                line.progress = progress_text(*self._progress)
                line.fraction = min(max(value / total, 0.0), 1.0) if total else -1.0
            line.log = list(self._log_lines)
            line.log_count = self._log_count
            if self._given_line:  # in a box, the questions are the box's children
                drawn = [p for p in placed if CallLine.shows(p)] if ended is None else []
                line.notes = [text for p in placed if p not in drawn and (text := _line_of(p))]
                line.questions = drawn  # none once the call ended: its questions' models are closed then
            if ended is not None:
                line.result = list(result)
                line.ended = ended

    def close(self) -> None:
        """Close every model: the questions placed here and the panel's own."""
        placed, self._placed, self._passing = self._placed, [], []
        self._answered, self._earlier_label = [], None
        self._retired.clear()
        for widget in placed:
            widget.close()
        if self._kit is not None:
            self._kit.close()
        if not self._given_line:  # closed with the kit's models
            self.call_line = None
        self.box = None

    def __repr__(self) -> str:
        state = "ended" if self.ended else ("shown" if self.box is not None else "empty")
        return f"<CallPanel {state}: {len(self._placed)} placed, {self._log_count} log messages>"


def _line_of(widget: w.Widget) -> str | None:
    """The closing line of a placed widget: a Label's text, or a question's line (who asked, how it ended)."""
    if isinstance(widget, w.Label):
        return str(widget.value)
    closing = getattr(widget, "closing_line", None)  # a one-model form's line, once left
    if isinstance(closing, str) and closing:
        return closing
    kids: tuple[Any, ...] = getattr(widget, "children", ())
    if len(kids) == 1 and isinstance(kids[0], w.Label):
        return str(kids[0].value)
    outcome = getattr(widget, "outcome", None)
    header = getattr(widget, "_header", None)
    if outcome is not None and header:
        return f"{header}: {outcome.describe()}"
    return None


# JupyterLab styles `.jp-OutputArea-output pre` with `word-break: break-all`: a closing line shown as plain
# text breaks words mid-word. Our own HTML wraps at spaces (a word longer than the line still breaks).
# It also paints a rendered-HTML `<pre>` with the page's colour (`--jp-layout-color0`): unseen in a cell, a
# near-black band in a dark theme inside a widget on `--jp-layout-color1` (the explorer). Transparent, the
# lines read on whatever they sit on, as plain-text output does; and in its size (a rendered `<pre>` is
# larger), so the closing line and a result's text under it read as one output.
CLOSING_CLASS = "mcp-widgets-closing"
_CLOSING_STYLE = (
    "white-space: pre-wrap; word-break: normal; overflow-wrap: anywhere; margin: 0; background: transparent; "
    "font-size: var(--jp-code-font-size)"
)


def closing_bundle(lines: Iterable[str], log_head: str = "", log: Sequence[str] = ()) -> dict[str, Any]:
    """A display bundle of plain lines and an optional log.

    "text/plain" for consoles and saved notebooks; "text/html" (every character escaped: server text stays
    text) so that JupyterLab wraps the lines between words, not inside them.
    """
    lines = [shown(line) for line in lines]  # server names and messages: no terminal escape in text/plain
    log = [shown(entry) for entry in log]
    plain = list(lines)
    if log_head:
        plain.append(f"{log_head}:")
        plain.extend(f"  {entry}" for entry in log)
    bundle: dict[str, Any] = {"text/plain": "\n".join(plain)}
    if not lines and not log_head:
        return bundle
    head = (
        f'<pre class="{CLOSING_CLASS}" style="{_CLOSING_STYLE}">{html.escape(chr(10).join(lines))}</pre>'
        if lines
        else ""
    )
    details = ""
    if log_head:
        body = html.escape("\n".join(log))
        details = (
            f"<details><summary>{html.escape(log_head)}</summary>"
            f'<pre style="{_CLOSING_STYLE}">{body}</pre></details>'
        )
    bundle["text/html"] = f'<div class="mcp-widgets-call {" ".join(LITERAL_CLASSES)}">{head}{details}</div>'
    return bundle
