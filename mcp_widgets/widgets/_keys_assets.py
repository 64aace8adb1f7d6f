"""The browser side of the forms: their JavaScript (ESM) and CSS, package data files in `assets/`.

`flush.js` holds what several views share (flush probes, aria-invalid); a form's ESM adds `groups.js` (a
page-unique name for each group of options) and its own file. The files name the CSS classes literally;
`tests/inprocess/widgets/test_keys.py` checks that they are the ones `_kit` defines.
"""

from __future__ import annotations

from importlib.resources import files

__all__ = [
    "CSS",
    "ESM",
    "FLUSH_JS",
    "HISTORY_CSS",
    "KEYS_CLASS",
    "QUESTION_CSS",
    "QUESTION_ESM",
    "STYLE_ESM",
    "asset",
]

KEYS_CLASS = "mcp-widgets-keys-"
"""The start of the class that names a card's box by its model id (a number follows; keys.js reads it)."""


def asset(name: str) -> str:
    """The text of a file in the package's `assets/` folder."""
    return (files(__package__) / "assets" / name).read_text(encoding="utf-8")


FLUSH_JS = asset("flush.js")
"""Flush probes and aria-invalid: the functions every view of ours shares."""
GROUPS_JS = asset("groups.js")
"""Names each group of options of a form (radio buttons, checkboxes), unique on the page."""
ESM = FLUSH_JS + GROUPS_JS + asset("keys.js")
"""The keyboard's module as one piece (keys.js with flush probes, aria-invalid, named option groups)."""
STYLE_ESM = FLUSH_JS + GROUPS_JS + asset("form_style.js")
"""A tool form's FormStyle module: flush probes, aria-invalid, named option groups; no keyboard."""
QUESTION_ESM = "\n".join(
    (
        FLUSH_JS,
        GROUPS_JS,
        # The keyboard helper's logic, called with the card's own element and model (its exports go: the
        # question's module has its own, and anywidget loads one module from a blob, without imports).
        "\n".join(line for line in asset("keys.js").splitlines() if not line.startswith("export ")),
        asset("literal.js"),
        asset("fields.js"),
        asset("question.js"),
    )
)
"""A one-model question card's module (`ElicitationForm`): the fields renderer, the card, its keys."""
QUESTION_CSS = asset("question.css")
"""The one-model question card's CSS."""
CSS = asset("forms.css")
"""The CSS of every form and card."""
HISTORY_CSS = asset("history.css")
"""The history panel's CSS (its one anywidget, drawn by assets/history.js)."""
