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


def test_the_forms_server_text_is_literal() -> None:
    form = ElicitationForm("Message " + MATH + TRICKY, SCHEMA, server="srv " + TRICKY)
    try:
        card = form.card
        assert card["header"] == "Request from srv " + TRICKY_SHOWN
        assert card["message"] == "Message " + MATH + TRICKY_SHOWN  # as text: the page sets textContent
        rows = {r["name"]: r for r in card["rows"]}
        assert rows["pick"]["title"] == "Pick " + MATH  # no HTML escaping needed: never parsed as HTML
        assert rows["pick"]["note"].startswith("About " + TRICKY_SHOWN)
        assert rows["pick"]["options"][1] == "One " + TRICKY_SHOWN
        assert rows["agree"]["title"] == "Agree " + TRICKY_SHOWN
        # The card's element carries the classes MathJax skips, from the element it is handed down.
        assert 'const LITERAL = ["mathjax_ignore", "tex2jax_ignore"]' in form._esm
        assert '"mcp-widgets-question", ...LITERAL' in form._esm
    finally:
        form.close()
