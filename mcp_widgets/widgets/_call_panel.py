"""CallPanel: what one call shows in its cell while it runs, and the plain text it leaves when it ends.

A call shows nothing until there is something to show: a question (form, URL card), a note, progress or a
log message. Then its line (`CallLine`, one anywidget) is the call's whole display, in every front end: a
background call's status line, the progress bar and its line, the collapsed log, then what was placed, in
order: the questions and other widgets (each its own model, which the line draws inside itself) and notes
(plain text in the line's own state, no model each). When the call ends, `end` returns the closing text (a
status line, each question's one line, the final progress line, the log) and closes every model the call
made: nothing of a finished call stays alive in the kernel or the browser.

Server text (progress messages, log data, notes) is plain text everywhere: the line's textContent, and
`html.escape` in the closing HTML.
"""

from __future__ import annotations

import html
import re
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any, Literal, TypeAlias

import ipywidgets as w

from ..core.text import LITERAL_CLASSES, LOG_KEEP, shown
from ._call_line import CallLine
from ._kit import WRAP_CLASS, Kit

__all__ = ["CallPanel", "Ending", "Note"]

Ending = Literal["done", "failed", "cancelled"]
Progress = tuple[float, float | None, str | None]
"""(progress, total, message) of a progress notification."""

ANSWERED_KEEP = 1
"""Answered forms kept as they are; older ones become their closing line (a note) and are closed."""
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


def text_line(text: str) -> w.Label:
    """A line of plain text shown outside any call's panel (inside one it is a `Note`); its Layout and Style
    are the shared ones: closing it leaves nothing open."""
    return Kit().make(w.Label, value=text, tooltip=text, _dom_classes=(WRAP_CLASS,))


class Note:
    """A line of plain text placed in a call's panel (a hint, a round's time left, an answered question's
    closing line): no widget model of its own, it is one of the call's line's `notes`."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"<Note {self.value!r}>"


Placed: TypeAlias = "w.Widget | Note"
"""What a panel shows below its line's head: a widget the line draws inside itself, or a line of text."""


class CallPanel:
    """The live view of one call (main thread only). No widget model exists until something is shown.

    Args:
        status: A background call's status line (plain text until the panel needs its line).
        line: The call's line made by whoever shows it (marimo: shown by the cell that starts the call, and
            kept as its output once the call ended).
    """

    def __init__(self, *, status: str | None = None, line: CallLine | None = None) -> None:
        self.call_line = line
        """The call's line, one anywidget: status, progress, log, notes and the placed widgets drawn inside
        it. Made when something is first shown, or given (marimo): then it outlives the panel."""
        self._given_line = line is not None
        self._kit: Kit | None = None
        self.status = status
        self._placed: list[Placed] = []
        self._passing: list[Placed] = []
        """Lines placed that the closing text leaves out (`line(lasting=False)`)."""
        self._answered: list[w.Widget] = []
        """Answered forms still shown as forms (at most ANSWERED_KEEP)."""
        self._retired: deque[Note] = deque()
        """Closing lines of older answered questions, oldest first (at most LINES_KEEP)."""
        self._earlier = 0
        """Answered questions whose line was dropped too (a runaway server asks thousands)."""
        self._earlier_note: Note | None = None
        self._progress: Progress | None = None
        self._log_lines: deque[str] = deque(maxlen=LOG_KEEP)
        self._log_count = 0
        self.ended = False

    @property
    def shown(self) -> CallLine | None:
        """The model to show in the call's cell: the call's line once made here (a given line is shown by
        whoever gave it), else None."""
        return None if self._given_line else self.call_line

    # -- building (lazily) -----------------------------------------------------------------------------------
    def _ensure_line(self) -> CallLine:
        """The call's line, made with what it shows (one message opens it with its whole state)."""
        if self.call_line is None:  # on the shared Layout: closing it leaves nothing open
            self._kit = Kit()
            self.call_line = self._kit.track(CallLine(layout=self._kit.layout(), **self._state()))
        return self.call_line

    # -- what the client feeds it ----------------------------------------------------------------------------
    def place(self, widget: Placed) -> CallLine | None:
        """Show `widget` (a form, a URL card, an app's view, a `Note`) after the rest; returns the line.

        A passing line alone (a round's time left) makes no line (None): it is about the question that
        comes next (or a handler answers, and nothing needs showing), and shows with it, so the line opens
        once with both.
        """
        self._placed.append(widget)
        if self.call_line is None and any(widget is p for p in self._passing):
            return None
        line = self._ensure_line()
        self._mirror()
        return line

    def line(self, text: str, *, lasting: bool = True) -> Note:
        """A line of plain text to place (`drop` takes it away, `set_line` changes it).

        A line that comes and goes (a round's time left, a task's status) is a `Note`, no model of its own:
        a runaway server's thousands of rounds leave nothing open. Not `lasting`: the line holds only while
        the call runs (a round's time left), and the closing text leaves it out, however the call ended (an
        interrupt ends it before the line could go).
        """
        note = Note(text)
        if not lasting:
            self._passing.append(note)
        return note

    def set_line(self, note: Note, text: str) -> None:
        """Change what a placed line says."""
        if note.value != text:
            note.value = text
            self._mirror()

    def drop(self, widget: Placed) -> None:
        """Take away a line (or close a widget) placed here that no longer holds (a round's time left)."""
        if self.ended or not any(p is widget for p in self._placed):
            return
        self._placed = [p for p in self._placed if p is not widget]
        self._passing = [p for p in self._passing if p is not widget]
        if isinstance(widget, w.Widget):
            widget.close()
        self._mirror()

    def note(self, text: str) -> CallLine:
        """Show a line of plain text (a refused request, a failed handler, a hint)."""
        self.place(Note(text))
        return self._ensure_line()

    def retire(self, widget: w.Widget) -> None:
        """`widget` (a form) was answered: the newest answered forms stay; older ones are closed and leave
        their closing line, and only the newest LINES_KEEP lines stay (the rest are counted)."""
        if self.ended or not any(p is widget for p in self._placed):
            return
        self._answered.append(widget)
        while len(self._answered) > ANSWERED_KEEP:
            old = self._answered.pop(0)
            note = Note(_line_of(old) or "")
            self._placed = [note if p is old else p for p in self._placed]
            old.close()
            self._retired.append(note)
        while len(self._retired) > LINES_KEEP:
            dropped = self._retired.popleft()
            self._placed = [p for p in self._placed if p is not dropped]
            self._earlier += 1
        if self._earlier:
            text = f"… {self._earlier} earlier questions answered"
            if self._earlier_note is None:
                self._earlier_note = Note(text)
                self._placed.insert(0, self._earlier_note)
            else:
                self._earlier_note.value = text
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
    ) -> CallLine | None:
        """Show the newest progress and append log lines; returns the line (None when there was nothing).

        Args:
            progress: (progress, total, message) of the newest notification.
            log: New log lines.
            count: How many log messages arrived, when some of them were dropped on the way.
        """
        if progress is None and not log:
            return self.call_line
        self._take(progress, log, count)
        line = self._ensure_line()
        self._mirror()
        return line

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
        lines = [text for p in self._lasting() if (text := _line_of(p))]
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

    def _lasting(self) -> list[Placed]:
        """What was placed but the lines that pass (`line(lasting=False)`): what the closing text says."""
        return [p for p in self._placed if not any(p is q for q in self._passing)]

    def _mirror(self, *, ended: Ending | None = None, result: Sequence[str] = ()) -> None:
        """Make the call's line say what the panel shows, in one update of its model (only what changed)."""
        line = self.call_line
        if line is None:
            return
        with line.hold_sync():
            for name, value in self._state(ended=ended, result=result).items():
                setattr(line, name, value)

    def _state(self, *, ended: Ending | None = None, result: Sequence[str] = ()) -> dict[str, Any]:
        """What the call's line shows: the placed widgets it draws (a given line, marimo's, draws only our
        one-model cards) and the other placed things as text lines, in the order they came; once ended,
        every question's closing line (their models are closed then)."""
        drawn: list[w.Widget] = []
        notes: list[str] = []
        order = ""
        for placed in self._placed if ended is None else self._lasting():
            draws = not self._given_line or CallLine.shows(placed)
            if isinstance(placed, w.Widget) and ended is None and draws:
                drawn.append(placed)
                order += "q"
            elif text := _line_of(placed):
                notes.append(text)
                order += "n"
        state: dict[str, Any] = {
            "status": self.status or "",
            "log": list(self._log_lines),
            "log_count": self._log_count,
            "notes": notes,
            "questions": drawn,
            "order": order,
        }
        if self._progress is not None:
            value, total, _message = self._progress
            state["progress"] = progress_text(*self._progress)
            state["fraction"] = min(max(value / total, 0.0), 1.0) if total else -1.0
        if ended is not None:
            state.update(result=list(result), ended=ended)
        return state

    def close(self) -> None:
        """Close every model: the widgets placed here and the panel's own."""
        placed, self._placed, self._passing = self._placed, [], []
        self._answered, self._earlier_note = [], None
        self._retired.clear()
        for widget in placed:
            if isinstance(widget, w.Widget):
                widget.close()
        if self._kit is not None:
            self._kit.close()
        if not self._given_line:  # closed with the kit's models
            self.call_line = None

    def __repr__(self) -> str:
        state = "ended" if self.ended else ("shown" if self.call_line is not None else "empty")
        return f"<CallPanel {state}: {len(self._placed)} placed, {self._log_count} log messages>"


def _line_of(widget: Placed) -> str | None:
    """The closing line of a placed thing: a note's text, a Label's, or a question's line (who asked, how
    it ended)."""
    if isinstance(widget, Note):
        return widget.value
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
