"""CallPanel: one model (its line), built only when needed, closed entirely at the end; server text stays
plain text."""

from __future__ import annotations

import ipywidgets as w
import pytest
import traitlets as t
from ipywidgets.widgets.widget import _instances

from mcp_widgets.widgets import CallLine
from mcp_widgets.widgets._call_panel import (
    ANSWERED_KEEP,
    LINES_KEEP,
    LOG_KEEP,
    CallPanel,
    closing_bundle,
    progress_text,
)


def test_progress_text() -> None:
    assert progress_text(3, 4, "copying") == "copying (3/4, 75%)"
    assert progress_text(5, 4, None) == "(5/4, 100%)"
    assert progress_text(0.5, None, "  spread\n out ") == "spread out (0.5)"
    assert progress_text(2, 0, "") == "(2)"
    assert progress_text(1, 4, "step 1 of 4") == "step 1 of 4 (25%)"  # the count once
    assert progress_text(1, 4, "step 1") == "step 1 (1/4, 25%)"
    assert progress_text(3, None, "3 files scanned") == "3 files scanned"


def test_panel_builds_nothing_until_needed_and_closes_everything() -> None:
    CallPanel().update((1, 2, "warm"), ["up"])  # shared Layout and Style models are made once per process
    before = set(_instances)
    panel = CallPanel(status="tool 'x' on 's': running")
    assert panel.update() is None and set(_instances) == before
    line = panel.update((1, 2, "half"), ["[info] a"])
    assert isinstance(line, CallLine) and panel.call_line is line and panel.shown is line
    assert set(_instances) - before == {line.model_id}  # one model: the call's line is its whole display
    assert (line.status, line.progress, line.fraction) == ("tool 'x' on 's': running", "half (1/2, 50%)", 0.5)
    assert (line.log, line.log_count) == (["[info] a"], 1)
    panel.set_status("tool 'x' on 's': done")
    bundle = panel.end("done", (2, 2, "all"), ["[info] b"])
    assert set(_instances) == before
    assert bundle["text/plain"].splitlines() == [
        "Progress: done — all (2/2, 100%)",
        "tool 'x' on 's': done",
        "Log (2 messages):",
        "  [info] a",
        "  [info] b",
    ]


def test_closing_bundle_escapes_everything() -> None:
    bundle = closing_bundle(["<script>x</script>"], "Log (1 message)", ["<img src=x onerror=alert(1)>"])
    page = bundle["text/html"]
    assert "<script>" not in page and "<img" not in page and "&lt;img" in page
    assert closing_bundle([]) == {"text/plain": ""}


def test_closing_lines_wrap_between_words_as_escaped_html() -> None:
    """JupyterLab breaks plain-text output mid-word: the closing lines come as our own escaped HTML too,
    and stay plain text for consoles and saved notebooks."""
    bundle = closing_bundle(["Request from <b>demo</b>: declined by the person"])
    assert bundle["text/plain"] == "Request from <b>demo</b>: declined by the person"
    page = bundle["text/html"]
    assert 'class="mcp-widgets-closing"' in page and "word-break: normal" in page
    assert "<b>" not in page and "&lt;b&gt;demo&lt;/b&gt;" in page


def test_placed_views_leave_their_line_and_the_log_keeps_the_newest() -> None:
    panel = CallPanel()
    panel.note("Handler 'h' failed: RuntimeError")
    panel.place(w.VBox(children=(w.Label(value="Request from s: accepted by the person"),)))
    lines = [f"[info] n{i}" for i in range(LOG_KEEP + 5)]
    panel.update(None, lines[:10], count=12)  # two messages were dropped before they got here
    bundle = panel.end("failed", None, lines[10:])
    assert bundle["text/plain"].splitlines()[:4] == [
        "Handler 'h' failed: RuntimeError",
        "Request from s: accepted by the person",
        f"Log ({LOG_KEEP + 7} messages):",
        "  … 7 earlier messages not kept",
    ]
    assert bundle["text/plain"].endswith(f"[info] n{LOG_KEEP + 4}")


def test_notes_and_questions_are_one_line_in_the_order_placed() -> None:
    """Notes are the line's text, each placed widget a reference drawn inside it, in the order they came;
    no model per note, and a line that passes is shown but left out of the closing text."""
    CallPanel().note("warm")  # shared Layout models are made once per process
    first, second = w.Button(description="first"), w.Button(description="second")
    made = set(_instances)
    buttons = {first.model_id, second.model_id}
    panel = CallPanel()
    line = panel.note("Tool 'x' is not listed by s")
    panel.place(first)
    left = panel.line("Answer within about 5 minutes", lasting=False)
    panel.place(left)
    panel.place(second)
    assert panel.shown is line and set(_instances) - made == {line.model_id}
    assert line.notes == ["Tool 'x' is not listed by s", "Answer within about 5 minutes"]
    assert line.questions == [first, second] and line.order == "nqnq"
    panel.set_line(left, "Answer within about 4 minutes")
    assert line.notes[1] == "Answer within about 4 minutes"
    panel.drop(left)
    assert line.notes == ["Tool 'x' is not listed by s"] and line.order == "nqq"
    panel.place(panel.line("passing", lasting=False))
    bundle = panel.end("done")
    assert bundle["text/plain"].splitlines() == ["Tool 'x' is not listed by s"]  # buttons say nothing
    assert set(_instances) == made - buttons  # the placed widgets closed, and the line
    assert panel.call_line is None


class _Answered(w.Button):
    closing_line = t.Unicode("")


def test_answered_questions_become_their_lines_and_older_lines_are_counted() -> None:
    """ANSWERED_KEEP answered forms stay drawn; older ones close and leave their line (a note, no model);
    beyond LINES_KEEP lines one note counts the earlier ones."""
    panel = CallPanel()
    forms = [_Answered(closing_line=f"Request {i} from s: accepted") for i in range(LINES_KEEP + 3)]
    for form in forms:
        panel.place(form)
        panel.retire(form)
    line = panel.call_line
    assert line is not None
    assert line.questions == forms[-ANSWERED_KEEP:]
    assert all(form.comm is None for form in forms[:-ANSWERED_KEEP])  # closed
    assert line.notes[0] == f"… {len(forms) - ANSWERED_KEEP - LINES_KEEP} earlier questions answered"
    assert line.notes[1:] == [
        f"Request {i} from s: accepted" for i in range(3 - ANSWERED_KEEP, len(forms) - 1)
    ]
    assert line.order == "n" * (LINES_KEEP + 1) + "q" * ANSWERED_KEEP
    panel.close()


def test_a_passing_line_alone_makes_no_model_and_shows_with_the_question() -> None:
    """A round's time left comes before its question: alone it opens nothing (a handler may answer, and
    nothing needs showing); the question's line opens with both, in the order placed."""
    CallPanel().note("warm")  # shared Layout models are made once per process
    question = w.Button(description="question")
    before = set(_instances)
    panel = CallPanel()
    left = panel.line("Answer within about 9 min", lasting=False)
    assert panel.place(left) is None and panel.shown is None and set(_instances) == before
    line = panel.place(question)
    assert line is not None and panel.shown is line
    assert (line.notes, line.questions, line.order) == (["Answer within about 9 min"], [question], "nq")
    panel.drop(left)
    assert (line.notes, line.order) == ([], "q")
    panel.close()


def test_the_line_ships_the_question_renderer_only_in_marimo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the page draws each placed widget with its own module (Jupyter), a call's line ships a few KB,
    not the question card's renderer too; in marimo, which hands out models only, it ships the renderer."""
    from mcp_widgets.kernel import marimo

    jupyter = CallLine(status="tool 'x' on 's': running")
    assert len(jupyter._esm) < 10_000 and "function renderQuestion" not in jupyter._esm
    assert "renderCallLine" in jupyter._esm and "function node" in jupyter._esm  # with literal.js's `node`
    monkeypatch.setattr(marimo, "_found", [None])  # as once marimo said so
    in_marimo = CallLine(status="tool 'x' on 's': running")
    assert "function renderQuestion" in in_marimo._esm and "renderCallLine" in in_marimo._esm
    assert len(in_marimo._esm) > 4 * len(jupyter._esm) and ".mcp-widgets-question" in in_marimo._css
    jupyter.close()
    in_marimo.close()
