"""CallLine: one call's whole display as one anywidget model (status, progress, log, what was placed, result).

The call's `CallPanel` mirrors itself into it (`CallPanel.call_line`): notes as text, and the widgets placed
(questions, URL cards, apps' views) as references, each drawn inside the line by the page: with the widget
manager's own view where it makes views (JupyterLab, Notebook 7, Voila), else (marimo) with the question
card's renderer joined into the line's module. All its own text is set as textContent: server text stays
literal.

marimo renders anywidget models only, and shows what a cell displays only while that cell runs: a background
call's line is displayed by the cell that starts the call, then kept up to date from whichever thread the
call's news arrives on (trait updates reach the page there at any time).

When the call ends, the page echoes its ending back (`seen_end`): a change that comes from the page is what
makes marimo run again the cells that read the line wrapped as a UI element (`Call.ui`), so the result
reaches later cells without any cell waiting on it (a waiting cell would keep every click out).
"""

from __future__ import annotations

from typing import Any

import anywidget
import ipywidgets as w
import traitlets as t

from .. import kernel
from ._form import ElicitationForm
from ._keys import DeclaredAnyWidget
from ._keys_assets import QUESTION_CSS, QUESTION_ESM, asset
from ._url_card import UrlCard

__all__ = ["CallLine", "LineDrawnForm", "LineDrawnUrlCard"]

QUESTION_RENDERER = "\n".join(line for line in QUESTION_ESM.splitlines() if not line.startswith("export "))
"""The question card's module as plain functions (`renderQuestion({model, el})`, with literal.js's `node`),
joined into the line's module: marimo hands a view another model (`model.widget_manager.get_model`) with its
state, `set`, `send` and `on`, but not its module (measured, marimo 0.25.2: `_esm` is undefined there), so
the line draws its questions with our own renderer."""


LINE_ESM = asset("literal.js") + "\n" + asset("call_line.js")
"""The line's module outside marimo (JupyterLab, Notebook 7, Voila), where it draws no question itself (the
call's box holds them): a few KB, not the question card's renderer too (about 44 KB more with every line)."""
LINE_CSS = asset("call_line.css")
MARIMO_LINE_ESM = QUESTION_RENDERER + "\n" + asset("call_line.js")
"""The line's module in marimo: the question card's renderer joined (marimo hands out models only)."""
MARIMO_LINE_CSS = QUESTION_CSS + "\n" + asset("call_line.css")


class CallLine(DeclaredAnyWidget):
    """A call's line: its status over its progress, log, notes and, once ended, its result."""

    _esm = t.Unicode(LINE_ESM).tag(sync=True)
    _css = t.Unicode(LINE_CSS).tag(sync=True)
    status = t.Unicode(
        "", help="The call's status line: what it is, and running / waiting / how it ended."
    ).tag(sync=True)
    progress = t.Unicode("", help="The newest progress line (server text, redacted and clipped).").tag(
        sync=True
    )
    fraction = t.Float(-1.0, help="How far, 0 to 1, when the server gave a total; -1 without one.").tag(
        sync=True
    )
    log = t.List(t.Unicode(), help="The newest log lines (server text, redacted).").tag(sync=True)
    log_count = t.Int(0, help="How many log messages arrived (more than `log` keeps).").tag(sync=True)
    notes = t.List(
        t.Unicode(), help="Lines placed in the call: answered questions' closing lines, hints, time left."
    ).tag(sync=True)
    result = t.List(t.Unicode(), help="The result's lines, once the call ended.").tag(sync=True)
    ended = t.Unicode("", help='"" while it runs, then "done", "failed" or "cancelled".').tag(sync=True)
    seen_end = t.Unicode("", help="Set by the page once it showed the ending (see the module).").tag(
        sync=True
    )
    echo_end = t.Bool(
        False,
        help="Whether the page sets `seen_end` (marimo's line, kept after the call; elsewhere the line "
        "closes as the call ends, and an echo would reach a closed comm).",
    ).tag(sync=True)
    questions = t.List(
        t.Instance(w.Widget),
        help="The widgets placed in the call (questions, URL cards, apps' views), each its own model, drawn "
        "inside the line.",
    ).tag(sync=True, **w.widget_serialization)
    order = t.Unicode(
        "",
        help="How `notes` and `questions` interleave: per entry 'n' (the next note) or 'q' (the next "
        "question), in the order they were placed; shorter than both: the rest, notes first.",
    ).tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        # In marimo the line draws its questions itself: it ships their renderer (unless a subclass brings
        # a module of its own).
        if kernel.in_marimo() and self.class_traits()["_esm"].default_value == LINE_ESM:
            kwargs.setdefault("_esm", MARIMO_LINE_ESM)
            kwargs.setdefault("_css", MARIMO_LINE_CSS)
        super().__init__(**kwargs)

    @staticmethod
    def shows(card: object) -> bool:
        """Whether the line can draw `card` inside itself where the page makes no views of other models
        (marimo): one anywidget, drawn with our renderer joined."""
        return bool(QUESTION_RENDERER) and isinstance(card, anywidget.AnyWidget)

    def __repr__(self) -> str:
        return self.status or "call"


class LineDrawnForm(ElicitationForm):
    """marimo: a question drawn only inside its call's line, so its model ships no module of its own.

    marimo mints a file for an anywidget's module as its model opens, which works only while a cell runs
    (0.25.2 asserts otherwise, and the form could not be built); a question comes after the cell returned,
    and the line carries the renderer anyway.
    """

    _esm = t.Unicode("", help="None: the call's line draws this question.").tag(sync=True)


class LineDrawnUrlCard(UrlCard):
    """marimo: a URL card drawn only inside its call's line, as `LineDrawnForm` (the same renderer draws it:
    its URL block, and "Open page" opening the page in the click that consents)."""

    _esm = t.Unicode("", help="None: the call's line draws this card.").tag(sync=True)
