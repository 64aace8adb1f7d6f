"""preview(): a form without a server, with its schema problems and the JSON each button would send."""

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

__all__ = ["Preview", "preview"]


class Preview(w.VBox):
    """A form shown without a server, with every schema problem and the exact JSON of each answer under it.

    The JSON lines follow the form live; once the form is answered they say which action was taken but no
    longer show the values (a saved notebook keeps nothing typed).
    """

    def __init__(
        self, requested_schema: Mapping[str, Any], *, message: str = "", server: str = "preview"
    ) -> None:
        self._spec = spec = parse_schema(requested_schema)
        self._message, self._server = message, server
        self.problems: tuple[Problem, ...] = spec.problems
        kit = self._kit = Kit()
        lines = [(str(p), p.severity == "error") for p in self.problems]
        lines = lines or [("No problems found in this schema.", False)]
        heading = f"Schema problems ({len(self.problems)}):" if self.problems else "Schema problems:"
        self._json = {action: kit.make(w.Label, _dom_classes=(WRAP_CLASS,)) for action in Action}
        self._reset = kit.make(
            w.Button, description="Reset", tooltip="A fresh form: what was typed or answered goes"
        )
        self._reset.on_click(lambda _button: self.reset())
        self._rest = (
            kit.make(w.Label, value=heading, variant="bold"),
            *(
                kit.make(w.Label, value=line, _dom_classes=(WRAP_CLASS, *(ERROR_CLASS,) * bad))
                for line, bad in lines
            ),
            kit.make(w.Label, value="What each button would send now:", variant="bold"),
            *self._json.values(),
            self._reset,
        )
        self.form = self._new_form()
        super().__init__(children=(self.form, *self._rest), layout=kit.layout())

    def _new_form(self) -> ElicitationForm:
        form = ElicitationForm._from_spec(self._message, self._spec, server=self._server)
        form._changed.append(self._update)
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
            checked = validate_content(self.form.spec, self.form._values())
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

    def close(self) -> None:
        """Close the form and every model of the preview."""
        form = getattr(self, "form", None)
        if form is not None:
            form.close()
        kit = getattr(self, "_kit", None)
        if kit is not None:
            kit.close()
        super().close()

    def __repr__(self) -> str:
        return f"<Preview problems={len(getattr(self, 'problems', ()))} form={getattr(self, 'form', None)!r}>"


def preview(requested_schema: Mapping[str, Any], *, message: str = "", server: str = "preview") -> Preview:
    """Show a requested schema as a form, without any server, with its problems and the JSON of each answer.

    The schema may have errors: the fields that can be shown are, and Accept stays disabled.
    """
    return Preview(requested_schema, message=message, server=server)
