"""playground(): edit a requestedSchema as JSON and see its live form, problems and answers as you type.

Given a pydantic model (or a dataclass), it previews the model instead: the schema the SDK sends for it is
shown read-only (change the model and run the cell again), with the form and what the tool receives.

Pure ipywidgets callbacks (no top-level await, no kernel internals), so it works the same in JupyterLab,
classic notebooks and Voila.
"""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Mapping
from typing import Any

import ipywidgets as w

from .widgets import PlainInMarimo, Preview

__all__ = ["EXAMPLE_SCHEMA", "Playground", "playground"]

EXAMPLE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "title": {
            "type": "string",
            "title": "Title",
            "description": "One line: what went wrong?",
            "minLength": 5,
            "maxLength": 80,
        },
        "severity": {
            "type": "string",
            "title": "Severity",
            "oneOf": [
                {"const": "low", "title": "Low: cosmetic"},
                {"const": "high", "title": "High: something is broken"},
                {"const": "critical", "title": "Critical: data is lost"},
            ],
            "default": "low",
        },
        "areas": {
            "type": "array",
            "title": "Areas",
            "items": {"type": "string", "enum": ["forms", "url mode", "history", "docs"]},
            "minItems": 1,
            "maxItems": 2,
            "default": ["forms"],
        },
        "reproducible": {"type": "boolean", "title": "I can reproduce it", "default": True},
        "occurrences": {"type": "integer", "title": "How often (per week)", "minimum": 0, "maximum": 100},
        "contact": {
            "title": "Contact email",
            "description": 'No "type" here: the playground warns, and the form shows it as text.',
            "format": "email",
        },
    },
    "required": ["title", "severity"],
}
"""A schema with most field kinds and one warning (a property without "type")."""


class Playground(PlainInMarimo, w.VBox):
    """A JSON text area for a requestedSchema, and under it the live `preview` of what it would ask.

    Every edit re-parses the text: valid JSON replaces the preview (its form, its problems and the JSON each
    button would send); text that is not JSON keeps the last preview and says why, as plain text.
    """

    def __init__(self, schema: Mapping[str, Any] | str | type | None = None, *, message: str = "") -> None:
        if schema is None:
            schema = EXAMPLE_SCHEMA
        self.model: type | None = schema if isinstance(schema, type) else None
        """The model previewed (its schema is read-only here), or None for an editable schema."""
        heading = "requestedSchema (JSON): edit it, and the form below follows as you type"
        if isinstance(schema, type):
            sent = _sent_schema(schema)
            refused = "none: the SDK refuses this model (the problems are below)"
            source = json.dumps(sent, indent=2, ensure_ascii=False) if sent is not None else refused
            heading = (
                f"The requestedSchema the SDK sends for {schema.__name__} (read-only: change the model and "
                "run the cell again)"
            )
        else:
            source = schema if isinstance(schema, str) else json.dumps(schema, indent=2, ensure_ascii=False)
        self.heading = w.Label(value=heading, style={"font_weight": "bold"})
        self.editor = w.Textarea(
            value=source,
            disabled=self.model is not None,
            continuous_update=True,
            # Not width 100%: a widget's own 2 px margin would push it out of its box.
            layout=w.Layout(width="auto", height="22em"),
        )
        self.message = w.Text(
            value=message,
            description="message",
            continuous_update=True,
            layout=w.Layout(width="auto"),
            style={"description_width": "initial"},
        )
        # Plain text (JSON errors quote the typed text), styled as the forms' errors (their CSS classes).
        self.status = w.Label(value="", _dom_classes=("mcp-widgets-wrap", "mcp-widgets-error"))
        self.preview: Preview | None = None
        self._shown: tuple[str, str] | None = None  # (normalised schema JSON, message) of the preview
        self._slot = w.VBox()
        super().__init__(children=(self.heading, self.editor, self.message, self.status, self._slot))
        self.editor.observe(self._on_edit, names="value")
        self.message.observe(self._on_edit, names="value")
        self._refresh()

    @property
    def error(self) -> str | None:
        """Why the text is not a usable schema right now (JSON syntax), or None."""
        return self.status.value or None

    def _on_edit(self, _change: Any = None) -> None:
        self._refresh()

    def _refresh(self) -> None:
        if self.model is not None:
            self._show(self.model, ("model", self.message.value))
            return
        try:
            schema = json.loads(self.editor.value)
        except json.JSONDecodeError as exc:
            # The editor has no line numbers: quote the line, marked where the parser stopped.
            self.status.value = (
                f"Not valid JSON ({exc.msg}) at line {exc.lineno}, column {exc.colno}: "
                f"{_marked(exc.doc, exc.lineno, exc.colno)} — the preview below is of the last valid schema."
            )
            return
        self.status.value = ""
        # A non-object (a list, a number) is still previewed: the preview reports it as a schema error.
        self._show(schema, (json.dumps(schema, sort_keys=True), self.message.value))

    def _show(self, schema: Any, key: tuple[str, str]) -> None:
        if key == self._shown:
            return  # whitespace or key order only: keep the form and what was typed in it
        self._shown = key
        new = Preview(schema, message=self.message.value)
        old, self.preview = self.preview, new
        if old is not None:
            # The old form ends (and stops its view count) before its view goes: a count reported for
            # a view removed while its model closes would reach a closed comm.
            old.form.close()
        self._slot.children = (new,)
        if old is not None:
            old.close()

    def close(self) -> None:
        """Close the preview and every widget of the playground."""
        preview = getattr(self, "preview", None)
        if preview is not None:
            preview.close()
        for name in ("heading", "editor", "message", "status", "_slot"):
            widget = getattr(self, name, None)
            if widget is not None:
                for part in (getattr(widget, "layout", None), getattr(widget, "style", None), widget):
                    if part is not None:
                        part.close()
        layout = getattr(self, "layout", None)
        super().close()
        if layout is not None:
            layout.close()

    def __repr__(self) -> str:
        preview: Preview | None = getattr(self, "preview", None)  # None: __init__ failed before it
        problems = len(preview.problems) if preview is not None else 0
        broken = getattr(self, "status", None) is not None and self.error is not None
        return f"<Playground problems={problems} json_error={broken}>"


_AROUND = 40  # characters of the bad line kept on each side of the mark


def _marked(doc: str, line: int, column: int) -> str:
    """Line `line` of `doc`, stripped and clipped around `column`, with "⟪here⟫" where it is wrong."""
    lines = doc.splitlines() or [""]
    text = lines[min(line, len(lines)) - 1]
    at = min(max(column - 1, 0), len(text))
    before, after = text[:at].lstrip(), text[at:].rstrip()
    if len(before) > _AROUND:
        before = "…" + before[-_AROUND:]
    if len(after) > _AROUND:
        after = after[:_AROUND] + "…"
    return f"{before}⟪here⟫{after}"


def _sent_schema(model: type) -> dict[str, Any] | None:
    """The schema the SDK sends for `model`, or None when it refuses it (the preview says why)."""
    from .authoring import model_problems  # the SDK's server side, only for models

    return model_problems(model)[0]


def playground(schema: Mapping[str, Any] | str | type | None = None, *, message: str = "") -> Playground:
    """Edit a requestedSchema and see, as you type, its form, every spec problem and each button's JSON.

    Args:
        schema: The starting schema, as a dict or JSON text (default: `EXAMPLE_SCHEMA`: one warning), or a
            pydantic model class or dataclass: then its schema (the SDK's rendering) is shown read-only, with
            the form, every problem `check_model` finds and what the tool receives for each answer.
        message: The message shown with the form (editable in the playground too).
    """
    return Playground(schema, message=message)


class _CallableModule(types.ModuleType):
    """This module, callable as `playground()`.

    `mcp_widgets.playground` names both this module and the function (a lazy attribute of the package).
    Importing the module first (`from mcp_widgets.playground import ...`) makes the import system bind the
    package's attribute to the module, so `mw.playground(...)` would meet a module; this keeps it working.
    """

    def __call__(
        self, schema: Mapping[str, Any] | str | type | None = None, *, message: str = ""
    ) -> Playground:
        return playground(schema, message=message)


sys.modules[__name__].__class__ = _CallableModule
