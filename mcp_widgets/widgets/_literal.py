"""Server text stays text in every Jupyter UI: no markup, no math.

ipywidgets hands a Label's value and a control's description to the page's LaTeX typesetter (MathJax 3 in
JupyterLab 4, Notebook 7 and Voila), so a server's "Price $5 and $10" would show as math, and `\\href` or
`\\style` would let it make links or style its text. MathJax skips an element with the class
`mathjax_ignore`, but only from the element it is handed: the Label itself, or the description's own
element inside a control (a class on a box around them does nothing; the browser tests check this). So
`literal`, called by `Kit.make` for every widget of ours:

- makes every Label a literal `Label` (this module's): whenever its value or tooltip is set, control, bidi
  and zero-width characters become visible escapes (`core.text.shown`); it carries the classes (its own
  element is where typesetting starts);
- writes those characters of a new control's description, tooltip and option labels as visible escapes;
- turns a description that could start math (a `$` or a backslash) into escaped HTML inside a span with
  the classes (`description_allow_html`); a description without either stays plain text.

HTML outputs of ours carry the classes on their root element.
"""

from __future__ import annotations

import html
import re
from typing import Any, TypeVar, cast

import ipywidgets as w
import traitlets

from ..core.text import LITERAL_CLASSES, shown

__all__ = ["LITERAL_CLASSES", "Label", "literal", "literal_html"]

W = TypeVar("W", bound=w.Widget)

_SPAN = f'<span class="{" ".join(LITERAL_CLASSES)}">'
_NOT_TYPESET = (w.Button, w.ToggleButton, w.HTML)
"""Their views never typeset their description or value (HTMLMath is not used)."""


def literal_html(text: object) -> str:
    """`text` as HTML that shows every character as it is: escaped, and in a span MathJax skips.

    `$`, `\\` and `@@` are written so that ipywidgets' description sanitizer finds no math to set aside (it
    restores `@@0@@`-like markers, and rewrites `\\\\(`): what it gets back is exactly the text.
    """
    escaped = html.escape(str(text), quote=True).replace("$", "&#36;").replace("\\", "&#92;")
    return _SPAN + re.sub("@(?=@)", "@<span></span>", escaped) + "</span>"


def _may_typeset(text: str) -> bool:
    return "$" in text or "\\" in text  # every TeX delimiter MathJax looks for starts with one of them


class Label(w.Label):
    """A literal Label: the same name, model and view (as `lean` keeps them), its value and tooltip always
    `shown`, never typeset."""

    @traitlets.validate("value", "tooltip")
    def _literal(self, proposal: Any) -> Any:
        value = proposal["value"]
        return shown(value) if isinstance(value, str) else value


def literal(cls: type[W], traits: dict[str, Any]) -> tuple[type[W], dict[str, Any]]:
    """The class and traits for a new `cls` such that its text shows literally (see the module docstring)."""
    if cls is w.Label:
        cls = cast("type[W]", Label)
    if issubclass(cls, Label):
        traits["_dom_classes"] = (*traits.get("_dom_classes", ()), *LITERAL_CLASSES)
    for name in ("description", "tooltip"):
        if isinstance(traits.get(name), str):
            traits[name] = shown(traits[name])
    options = traits.get("options")
    if isinstance(options, list) and all(isinstance(o, tuple) and len(o) == 2 for o in options):
        traits["options"] = [(shown(label), value) for label, value in options]  # (title, value) pairs
    description = traits.get("description")
    if not issubclass(cls, _NOT_TYPESET) and isinstance(description, str) and _may_typeset(description):
        traits["description"] = literal_html(description)
        traits["description_allow_html"] = True
    return cls, traits
