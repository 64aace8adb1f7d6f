"""Server text in our widgets is literal: visible escapes, never typeset (the browser tests show the DOM)."""

from __future__ import annotations

import html
import re
from typing import Any

import ipywidgets as w

from mcp_widgets.widgets import ElicitationForm

MATH = r"Price $5 and $10 \(x\) @@0@@ \\(y\\) <b>b</b>"
TRICKY = "a\x1b[2J\u202eb"
TRICKY_SHOWN = "a\\x1b[2JU+202Eb"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "pick": {
            "type": "string",
            "title": "Pick " + MATH,
            "description": "About " + TRICKY,
            "oneOf": [{"const": "a", "title": "One " + TRICKY}, {"const": "b", "title": "Two"}],
        },
        "plain": {"type": "string", "title": "Plain title"},
        "agree": {"type": "boolean", "title": "Agree " + TRICKY},
    },
    "required": ["plain"],
}


def models(form: ElicitationForm) -> list[w.Widget]:
    found: list[w.Widget] = []

    def walk(widget: w.Widget) -> None:
        found.append(widget)
        for kid in getattr(widget, "children", ()):
            walk(kid)

    walk(form)
    return found


def text_of(description_html: str) -> str:
    """What a browser shows for an HTML description: the text of its markup."""
    return html.unescape(re.sub("<[^>]+>", "", description_html))


def test_labels_and_descriptions_are_literal() -> None:
    form = ElicitationForm("Message " + MATH + TRICKY, SCHEMA, server="srv " + TRICKY)
    try:
        widgets = models(form)
        labels = [m for m in widgets if isinstance(m, w.Label)]
        assert labels and all({"mathjax_ignore", "tex2jax_ignore"} <= set(m._dom_classes) for m in labels)
        values = [m.value for m in labels]
        assert "Request from srv " + TRICKY_SHOWN in values
        assert "Message " + MATH + TRICKY_SHOWN in values
        assert any(v.startswith("About " + TRICKY_SHOWN) for v in values)
        controls = {m.description: m for m in widgets if getattr(m, "description", "")}
        (pick,) = [m for m in widgets if isinstance(m, w.RadioButtons)]
        # A title that could start math is escaped HTML in a span MathJax skips; the text is exactly it.
        assert pick.description_allow_html and 'class="mathjax_ignore tex2jax_ignore"' in pick.description
        assert "$" not in pick.description and "\\" not in pick.description and "@@" not in pick.description
        assert text_of(pick.description) == "Pick " + MATH
        assert [label for label, _ in pick.options][1] == "One " + TRICKY_SHOWN
        # Without `$` or a backslash, a description stays plain text.
        assert "Plain title *" in controls and not controls["Plain title *"].description_allow_html
        (agree,) = [m for m in widgets if isinstance(m, w.Checkbox)]
        assert text_of(agree.description) == "Agree " + TRICKY_SHOWN  # (its escape has a backslash: HTML)
        labels[0].value = "later " + TRICKY  # every value set later is shown literally too
        assert labels[0].value == "later " + TRICKY_SHOWN
    finally:
        form.close()
