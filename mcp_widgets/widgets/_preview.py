"""preview(): a form without a server, with its schema problems and the JSON each button would send.

Given a pydantic model (or a dataclass) instead of a schema, it also shows the schema the SDK sends for it and
what the tool would receive (the authors' room, `mcp_widgets.authoring`, does the model side).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import ipywidgets as w
import mcp_types

from ..core.outcome import Action, to_wire
from ..core.schema import parse_schema
from ..core.spec import Problem
from ..core.validation import validate_content
from ._form import ElicitationForm, FormState
from ._kit import ERROR_CLASS, WRAP_CLASS, Kit
from ._plain import PlainInMarimo

__all__ = ["Preview", "preview"]

ON_2026 = (
    "(On 2026-07-28 only its type, properties and required are sent: the SDK's wire model there drops a "
    "top-level title and description.)"
)


class Preview(PlainInMarimo, w.VBox):
    """A form shown without a server, with every schema problem and the exact JSON of each answer under it.

    The JSON lines follow the form live; once the form is answered they say which action was taken but no
    longer show the values (a saved notebook keeps nothing typed). For a model, the lines of what the tool
    receives show the validated instance, also after Accept: the author is the one typing (nothing of it goes
    to the history or a log).
    """

    def __init__(
        self, requested_schema: Mapping[str, Any] | type, *, message: str = "", server: str = "preview"
    ) -> None:
        self.model: type | None = None
        """The model class previewed, or None for a schema."""
        self.sent_schema: dict[str, Any] | None = None
        """For a model: the requestedSchema the SDK sends for it, or None when the SDK refuses the model."""
        model_problems: tuple[Problem, ...] = ()
        if isinstance(requested_schema, type):
            # Only models pay for the SDK's server side (a schema preview stays light).
            from ..authoring import model_problems as check
            from ..authoring import received, sendable_schema

            self._received = received
            self.model = requested_schema
            self.sent_schema, model_problems = check(requested_schema)
            requested_schema = self.sent_schema or sendable_schema(requested_schema)
        self._spec = spec = parse_schema(requested_schema)
        self._message, self._server = message, server
        self.problems: tuple[Problem, ...] = spec.problems
        if self.model is not None:
            # A refused model's fields stand as placeholders: their own problems are the model's.
            named = {p.property for p in model_problems} if self.sent_schema is None else set()
            self.problems = model_problems + tuple(
                p for p in spec.problems if p.property not in named and p not in model_problems
            )
        kit = self._kit = Kit()
        lines = [(str(p), p.severity == "error") for p in self.problems]
        lines = lines or [("No problems found in this schema.", False)]
        heading = f"Schema problems ({len(self.problems)}):" if self.problems else "Schema problems:"
        self._json = {action: kit.make(w.Label, _dom_classes=(WRAP_CLASS,)) for action in Action}
        self._reset = kit.make(
            w.Button, description="Reset", tooltip="A fresh form: what was typed or answered goes"
        )
        self._reset.on_click(lambda _button: self.reset())
        self._receives: dict[Action, w.Label] = {}
        model_lines: tuple[w.Label, ...] = ()
        if self.model is not None:
            self._receives = {action: kit.make(w.Label, _dom_classes=(WRAP_CLASS,)) for action in Action}
            name = getattr(self.model, "__name__", "the model")
            sent = (
                json.dumps(self.sent_schema, ensure_ascii=False)
                if self.sent_schema is not None
                else ("none: the SDK refuses this model (see the problems below)")
            )
            model_lines = (
                kit.make(w.Label, value=f"The requestedSchema the SDK sends for {name}:", variant="bold"),
                kit.make(w.Label, value=sent, _dom_classes=(WRAP_CLASS,)),
                kit.make(w.Label, value=ON_2026, _dom_classes=(WRAP_CLASS,)),
            )
        self._rest = (
            *model_lines,
            kit.make(w.Label, value=heading, variant="bold"),
            *(
                kit.make(w.Label, value=line, _dom_classes=(WRAP_CLASS, *(ERROR_CLASS,) * bad))
                for line, bad in lines
            ),
            kit.make(w.Label, value="What each button would send now:", variant="bold"),
            *self._json.values(),
            *(
                (kit.make(w.Label, value="What the tool receives:", variant="bold"), *self._receives.values())
                if self.model is not None
                else ()
            ),
            self._reset,
        )
        self.form = self._new_form()
        super().__init__(children=(self.form, *self._rest), layout=kit.layout())

    def _new_form(self) -> ElicitationForm:
        form = ElicitationForm.from_spec(self._message, self._spec, server=self._server)
        form.on_change(self._update)
        form.add_done_callback(lambda done: self._update() if done is self.form else None)
        self.form = form
        self._update()
        return form

    def reset(self) -> ElicitationForm:
        """Replace the form by a fresh one (defaults only: what was typed or answered goes); returns it.

        A preview's form answers once, like any form: after Accept, Decline or Cancel, `reset()` (or the
        Reset button) gives one to fill again, from the browser or from code.
        """
        old = self.form
        new = self._new_form()
        old.close()  # first: it stops its view count before its view goes
        self.children = (new, *self._rest)
        return new

    def sent_json(self, action: Action | str) -> str | None:
        """The JSON `action` would send right now, or None when that button can't be used now."""
        act = Action(action)
        if self.form.state is not FormState.PENDING:
            return None
        content = None
        if act is Action.ACCEPT:
            if not self.form.spec.ok:
                return None
            checked = validate_content(self.form.spec, self.form.values())
            if not checked.ok:
                return None
            content = checked.content
        result = mcp_types.ElicitResult.model_validate(to_wire(act, content))
        return json.dumps(
            result.model_dump(mode="json", by_alias=True, exclude_none=True), ensure_ascii=False
        )

    def _update(self) -> None:
        form = self.form
        for action, label in self._json.items():
            name = action.value.capitalize()
            if form.state is not FormState.PENDING:
                done = form.outcome is not None and form.outcome.action is action
                label.value = f"{name} → {'sent (values not kept here)' if done else 'not sent'}"
                continue
            text = self.sent_json(action)
            if text is None:
                why = "the schema has errors" if not form.spec.ok else "fix: " + ", ".join(form.errors)
                label.value = f"{name} → nothing (Accept is disabled: {why})"
            else:
                label.value = f"{name} → {text}"
        if self.model is not None:
            self._update_receives()

    def _update_receives(self) -> None:
        received = self._received
        assert self.model is not None
        form = self.form
        for action, label in self._receives.items():
            name = action.value.capitalize()
            if action is not Action.ACCEPT:
                label.value = f"{name} → {received(self.model, action.value)}"
            elif form.result is not None and form.result.action == "accept":
                label.value = f"Accepted → {received(self.model, 'accept', form.result.content)}"
            elif form.state is FormState.PENDING and (text := self.sent_json(action)) is not None:
                content = json.loads(text).get("content", {})
                label.value = f"{name} → {received(self.model, 'accept', content)}"
            else:
                label.value = f"{name} → nothing yet (Accept is disabled)"

    def close(self) -> None:
        """Close the form and every model of the preview."""
        form = getattr(self, "form", None)
        if form is not None:
            form.close()
        kit = getattr(self, "_kit", None)
        if kit is not None:
            kit.close()
        super().close()

    def _display_(self) -> Any:
        """In marimo: the form itself (one anywidget, live, answered there), the rest as text under it.

        The text is what the preview said when shown: marimo draws no stock Label, so the JSON lines do not
        follow the form there; `sent_json(action)` in a later cell reads them.
        """
        from .. import kernel

        lines = [str(item.value) for item in self._rest if isinstance(item, w.Label)]
        lines.append("(in marimo these lines do not follow the form: preview.sent_json('accept') reads them)")
        return kernel.marimo_stack(self.form, "\n".join(lines))

    def __repr__(self) -> str:
        return f"<Preview problems={len(getattr(self, 'problems', ()))} form={getattr(self, 'form', None)!r}>"


def preview(
    requested_schema: Mapping[str, Any] | type, *, message: str = "", server: str = "preview"
) -> Preview:
    """Show a requested schema as a form, without any server, with its problems and the JSON of each answer.

    The schema may have errors: the fields that can be shown are, and Accept stays disabled. A pydantic model
    class (or a dataclass) may stand for the schema: then the preview shows the schema the SDK sends for it,
    every problem `check_model` finds, and what the tool receives for each answer.
    """
    return Preview(requested_schema, message=message, server=server)
