"""ElicitationForm: one elicitation request as a form a person answers with Accept / Decline / Cancel."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import ipywidgets as w
import traitlets

from .. import kernel
from ..core.exceptions import FormStateError
from ..core.outcome import Action, Reason
from ..core.schema import validate_schema
from ..core.spec import FormSpec
from ..core.validation import validate_content, validate_field
from ..kernel.comms import comms_go_nowhere
from ._answerable import Answerable, FormState
from ._fields import (
    ERROR_CLASS,
    FIRST_CLASS,
    FORM_CLASS,
    LAST_CLASS,
    WRAP_CLASS,
    Field,
    Kit,
    fill_fields,
    known_keys,
    make_field,
    title_width,
)
from ._keys import KeyRoute, shared_catcher
from ._kit import HINT_CLASS, asker
from ._lean import LAZY

__all__ = ["ElicitationForm", "FormState"]

_ACTIONS = (Action.ACCEPT, Action.DECLINE, Action.CANCEL)
KEYS_HINT = "Keys: Enter in the last field accepts · Esc cancels"
"""Under a form's buttons: Accept by keyboard is a deliberate key on the form itself (see keys.js)."""
KEYS_HINT_NO_FIELDS = "Keys: Tab to Accept and press Enter · Esc cancels"
"""The same, for a form without fields (a confirmation)."""
KEYS_HINT_APP = "Keys: the app answers with its own controls · Esc cancels"
"""The same while a server's app shows the question: its keys stay inside its frame, and Accept is its own."""
ESCAPE_AGAIN = "Press Esc again to cancel: what you typed will be discarded"
"""Shown instead of the hint after a first Escape on a form with typed input."""
_MORE_BUTTONS: dict[Action, dict[str, str]] = {
    Action.DECLINE: {"description": "Decline", "icon": "times", "tooltip": "Tell the server no"},
    Action.CANCEL: {"description": "Cancel", "tooltip": "Dismiss without answering"},
}


class ElicitationForm(Answerable):
    """A form for one elicitation request, shown inline where the request was made.

    It names the server that asks, shows the message and one control per field (as plain text: a server
    controls them), and resolves exactly once. When it resolves, every model it created is closed and one
    plain line is left in its place saying who asked and how it ended, never what was typed.

    Args:
        message: The server's message, shown as plain text.
        requested_schema: The server's `requestedSchema`.
        server: The name we know the server by (always shown).
        declared_name: The name the server gives itself, shown beside `server` when it differs.

    Raises:
        SchemaError: The schema has an error (the request should be refused with -32602).
    """

    kind: ClassVar[str] = "form"
    """What sort of `Card` this is (handlers decide by it)."""

    def __init__(
        self,
        message: str,
        requested_schema: Mapping[str, Any],
        *,
        server: str,
        declared_name: str | None = None,
    ) -> None:
        self._setup(message, validate_schema(requested_schema), server=server, declared_name=declared_name)

    @classmethod
    def for_handler(
        cls,
        message: str,
        requested_schema: Mapping[str, Any],
        *,
        server: str,
        declared_name: str | None = None,
    ) -> ElicitationForm:
        """A form a handler answers at once: in plain Python, what only shows it is made when first read.

        The client builds these when a handler is chosen (`questions.intake`); it reads `children` as soon
        as a handler leaves the form pending, so a form that waits is always whole (code that walks every
        model, as `get_manager_state` does, would otherwise see the form make its models during the walk).
        """
        spec, lazy = validate_schema(requested_schema), comms_go_nowhere()
        return cls.from_spec(message, spec, server=server, declared_name=declared_name, lazy=lazy)

    _for_handler = for_handler  # the old private name, which tests still drive

    @classmethod
    def from_spec(
        cls,
        message: str,
        spec: FormSpec,
        *,
        server: str,
        declared_name: str | None = None,
        lazy: bool = False,
    ) -> ElicitationForm:
        """A form for a parsed spec, even one with errors (then Accept stays disabled): for `preview`."""
        form = cls.__new__(cls)
        form._setup(message, spec, server=server, declared_name=declared_name, lazy=lazy)
        return form

    def _setup(
        self, message: str, spec: FormSpec, *, server: str, declared_name: str | None, lazy: bool = False
    ) -> None:
        self._start()
        self._changed: list[Callable[[], object]] = []
        self.spec = spec
        self.server = server
        self.declared_name = declared_name
        self.message = message

        kernel.attach()  # so that every keystroke reaches us even while a cell awaits this form
        # One title width for every control, so the controls of a form line up.
        kit = self._kit = Kit(description_width=title_width(spec.fields))
        try:
            self._build(message, spec, server=server, declared_name=declared_name, lazy=lazy)
        except BaseException:
            kit.close()  # leave no half-built models behind
            route = getattr(self, "_route", None)
            if route is not None:
                route.close()
            raise

    def _build(
        self, message: str, spec: FormSpec, *, server: str, declared_name: str | None, lazy: bool
    ) -> None:
        # Every model is created in its first state (no update message right after it opens).
        kit = self._kit
        self._header = f"Request from {asker(server, declared_name)}"
        # The header, the message and the button row only show the form: see `_chrome`.
        self._top: tuple[w.Widget, ...] | None = None
        self._message: w.Label | None = None
        self._button_box: w.HBox | None = None
        self._hint: w.Label | None = None
        self._embedded: tuple[w.Widget, w.Button] | None = None  # an app showing the question: see `embed`
        self._escape_armed = False  # a first Escape on a form with typed input: the next one cancels
        self._armed_edits: int | None = None  # the browser's count of edits at that first Escape

        # A field's note is made only once it has something to say: fewer models, fewer messages.
        self._fields: dict[str, Field] = {}
        last = len(spec.fields) - 1
        for i, spec_field in enumerate(spec.fields):
            classes = (FIRST_CLASS,) * (i == 0) + (LAST_CLASS,) * (i == last)
            self._fields[spec_field.name] = make_field(
                spec_field, kit, classes=classes, validate=validate_field, lazy_note=True
            )
        fields = list(self._fields.values())
        self._broken = self._problem_lines(spec)

        disabled, tooltip = self._accept_state([f.spec.title for f in fields if f.error])
        disabled_trait: dict[str, Any] = {"disabled": True} if disabled else {}
        self._accept = kit.make(
            w.Button,
            description="Accept",
            button_style="primary",
            icon="check",
            tooltip=tooltip,
            **disabled_trait,
        )
        self._accept.on_click(lambda _button: self._clicked(Action.ACCEPT))
        self._more: dict[Action, w.Button] = {}  # Decline and Cancel: see `_button`
        # The keyboard helper is shared by every form (never closed by ours); our route gets its messages.
        self._keys = shared_catcher()
        self._route = KeyRoute(self._on_key)

        for field in fields:
            field.on_change(functools.partial(self._on_change, field))

        super().__init__(
            # A handler's form in plain Python (see `for_handler`): what only shows it is made if read.
            children=LAZY if lazy else self._pending_children(),
            layout=kit.layout(),
            _view_count=0,
            _dom_classes=(FORM_CLASS, self._route.token),
            model_id=self._route.model_id,  # the helper's views find the form's model by it
            **known_keys(type(self)),
        )
        self._route.listen(self)

    # -- what the form shows ---------------------------------------------------------------------------------
    @property
    def field_names(self) -> tuple[str, ...]:
        """The fields, in the schema's order."""
        return tuple(f.name for f in self.spec.fields)

    @property
    def errors(self) -> dict[str, str]:
        """Every currently invalid field and why (untouched required fields too); empty once resolved."""
        if self._state is not FormState.PENDING:
            return {}
        found = {}
        for name, field in self._fields.items():
            error = validate_field(field.spec, field.value)
            if error:
                found[name] = error
        return found

    def __repr__(self) -> str:
        return f"<ElicitationForm server={self.server!r} fields={len(self.spec.fields)} {self._state.value}>"

    # -- driving it as a person would ------------------------------------------------------------------------
    def fill(self, /, **values: Any) -> None:
        """Enter values as a person would: through each control's front-end path (`set_state`).

        Raises:
            FieldNotFound: A name the form has no field for.
            FormStateError: The form is already resolved.
            TypeError, ValueError: A value no person could enter in that control (nothing is set then).
        """
        if self._state is not FormState.PENDING:
            raise FormStateError(f"the form is already {self._state.value}")
        fill_fields(self._fields, values)

    def accept(self) -> bool:
        """Click Accept; does nothing (False) while it is disabled or once the form is resolved."""
        return self._press(self._accept)

    # -- internals -------------------------------------------------------------------------------------------
    def embed(self, widget: w.Widget) -> None:
        """Show `widget` (the server's app for this question) instead of the fields and Accept; Decline and
        Cancel stay, and a "Use the plain form" button brings the fields back (`use_plain_form`)."""
        if self._state is not FormState.PENDING:
            return
        # Its own Layout (the shared one is narrow): the label must show whole.
        switch = self._kit.track(
            w.Button(description="Use the plain form", icon="list", layout=w.Layout(width="auto"))
        )
        switch.on_click(lambda _button: self.use_plain_form())
        self._embedded = (widget, switch)
        if self._button_box is not None:
            self._button_box.children = self._shown_buttons()
        self._show_hint(self._keys_hint())
        if self.trait_has_value("children"):
            self.children = self._pending_children()

    def use_plain_form(self, why: str | None = None) -> None:
        """Show the fields and Accept again (the app stays away); `why` goes on a line above them."""
        if self._state is not FormState.PENDING or self._embedded is None:
            return
        self._embedded = None
        if self._button_box is not None:
            self._button_box.children = self._shown_buttons()
        if self.trait_has_value("children"):  # first: the app (and what it said) goes before the line why
            self.children = self._pending_children()
        if why:
            self._show_hint(why, warn=True)
        else:
            self._show_hint(self._keys_hint())

    def _shown_buttons(self) -> tuple[w.Button, ...]:
        """Accept, Decline and Cancel; while an app shows the question, "Use the plain form" instead of
        Accept (the app answers)."""
        if self._embedded is None:
            return tuple(self._buttons().values())
        shown = tuple(b for action, b in self._buttons().items() if action is not Action.ACCEPT)
        return (*shown, self._embedded[1])

    @property
    def embedded(self) -> bool:
        """An app shows the question (the fields wait behind "Use the plain form")."""
        return self._embedded is not None

    def _pending_children(self) -> tuple[w.Widget, ...]:
        """What a pending form shows: header, message, each field's control (and note), buttons, keys."""
        top, buttons = self._chrome()
        assert self._hint is not None
        if self._embedded is not None:
            return (*top, self._embedded[0], buttons, self._hint, self._keys)
        views = []
        for name in dict.fromkeys([*self._order, *self._fields]):  # the schema's order
            field = self._fields.get(name)
            views += [*(field.views() if field is not None else ()), *self._broken.get(name, ())]
        return (*top, *views, buttons, self._hint, self._keys)

    def _problem_lines(self, spec: FormSpec) -> dict[str, tuple[w.Label, ...]]:
        """A preview's schema errors about a property, as error lines where that property would be (a
        property with an error may show no field at all): nothing is dropped silently."""
        props = spec.schema.get("properties") if isinstance(spec.schema, Mapping) else None
        self._order: list[str] = list(props) if isinstance(props, Mapping) else []
        lines: dict[str, tuple[w.Label, ...]] = {}
        for problem in spec.problems:
            if problem.severity == "error" and problem.property is not None:
                text = f"⚠ Error: property {problem.property!r}: {problem.message}"
                label = self._kit.make(w.Label, value=text, _dom_classes=(WRAP_CLASS, ERROR_CLASS))
                lines[problem.property] = (*lines.get(problem.property, ()), label)
        return lines

    def _chrome(self) -> tuple[tuple[w.Widget, ...], w.HBox]:
        """The header and message Labels, and the row of buttons: made the first time they are needed."""
        if self._top is None or self._button_box is None:
            kit = self._kit
            self._top = (kit.make(w.Label, value=self._header, variant="bold", _dom_classes=(WRAP_CLASS,)),)
            if self.message:
                self._message = kit.make(
                    w.Label, value=self.message, tooltip=self.message, _dom_classes=(WRAP_CLASS,)
                )
                self._top += (self._message,)
            self._button_box = kit.make(w.HBox, children=self._shown_buttons())
            self._hint = kit.make(w.Label, value=self._keys_hint(), _dom_classes=(WRAP_CLASS, HINT_CLASS))
        return self._top, self._button_box

    @traitlets.default("children")
    def _children_first_read(self) -> tuple[w.Widget, ...]:
        # Only reached by a `for_handler` form while pending: a resolving form sets its children.
        return self._pending_children() if self._state is FormState.PENDING else ()

    def _buttons(self) -> dict[Action, w.Button]:
        return {action: button for action in _ACTIONS if (button := self._button(action)) is not None}

    def _button(self, action: Action) -> w.Button | None:
        # Decline and Cancel are made the first time they are needed: as the form is built, read or pressed
        # (a `for_handler` form that is accepted never needs them). None: never made, and it is resolved.
        if action is Action.ACCEPT:
            return self._accept
        button = self._more.get(action)
        if button is None and self._state is FormState.PENDING:
            button = self._more[action] = self._kit.make(w.Button, **_MORE_BUTTONS[action])
            button.on_click(lambda _button: self._clicked(action))
        return button

    def _on_key(self, content: dict[str, Any]) -> None:
        # The browser sends Escape only from a form the person engaged (keys.js), with "typed" once they
        # typed or changed something there (the kernel may not have that keystroke yet).
        if content.get("key") == "Escape":
            edits = content.get("edits")
            self._escape(
                typed=content.get("typed") is True,
                edits=edits if isinstance(edits, int) and not isinstance(edits, bool) else None,
            )
        elif (
            content.get("key") == "Enter"
            and content.get("in_last_field") is True
            and not self._route.after_flush(lambda: self._press(self._accept))
        ):
            self._press(self._accept)

    def _escape(self, *, typed: bool = False, edits: int | None = None) -> None:
        """Cancel an untouched form; on one with typed input, ask for a second Escape first.

        `edits`: the browser's count of the person's edits in the form. The value updates of what was typed
        may reach the kernel after the first Escape (the front end holds them back), so only the browser
        can say whether the person typed between the two: the second Escape cancels when the count is the
        same.
        """
        if self._state is not FormState.PENDING:
            return
        typed = typed or any(field.touched for field in self._fields.values())
        again = self._escape_armed and (edits is None or edits == self._armed_edits)
        if typed and not again:
            self._escape_armed, self._armed_edits = True, edits
            self._show_hint(ESCAPE_AGAIN, warn=True)
            return
        self._press(self._button(Action.CANCEL))

    def _keys_hint(self) -> str:
        """The line under the buttons that says which keys answer."""
        if self._embedded is not None:
            return KEYS_HINT_APP
        return KEYS_HINT if self.spec.fields else KEYS_HINT_NO_FIELDS

    def _show_hint(self, text: str, *, warn: bool = False) -> None:
        hint = self._hint
        if hint is None or hint.comm is None or hint.value == text:
            return
        classes = (WRAP_CLASS, HINT_CLASS, ERROR_CLASS) if warn else (WRAP_CLASS, HINT_CLASS)
        with hint.hold_sync():
            hint.value, hint._dom_classes = text, classes

    def _clicked(self, action: Action) -> None:
        # An Accept clicked in the browser waits for the updates the front end still holds back (see
        # KeyRoute.after_flush): otherwise the answer could lack the last characters typed.
        if (
            action is Action.ACCEPT
            and not self._pressing
            and self._route.after_flush(lambda: Answerable._clicked(self, action))
        ):
            return
        super()._clicked(action)

    def _on_change(self, field: Field) -> None:
        if self._state is not FormState.PENDING:
            return
        field.touched = True
        # Typing on after a first Escape: the next Escape asks again. With the browser's count of edits the
        # count decides (this change may be one typed before that Escape, arriving late).
        if self._escape_armed and self._armed_edits is None:
            self._escape_armed = False
            self._show_hint(self._keys_hint())
        self._refresh()
        for fn in self._changed:
            fn()

    def _refresh(self) -> None:
        """Re-validate: update every note, and enable Accept only when all is well."""
        invalid = []
        new_note = False
        for field in self._fields.values():
            error = validate_field(field.spec, field.value)
            new_note |= field.show(error)
            if error:
                invalid.append(field.spec.title)
        if new_note and self.trait_has_value("children"):
            # A field has something to say for the first time: its note goes under its control.
            self.children = self._pending_children()
        disabled, tooltip = self._accept_state(invalid)
        if (self._accept.disabled, self._accept.tooltip) != (disabled, tooltip):
            with self._accept.hold_sync():  # one message for both
                self._accept.disabled, self._accept.tooltip = disabled, tooltip

    def _accept_state(self, invalid: list[str]) -> tuple[bool, str]:
        """Whether Accept is disabled, and its tooltip, given the titles of the invalid fields."""
        if not self.spec.ok:
            return True, "This request cannot be accepted: its schema is invalid"
        if invalid:
            return True, "Still to fix: " + ", ".join(invalid)
        return False, f"Send the answers to {self.server}"

    def on_change(self, callback: Callable[[], object]) -> None:
        """Call `callback` after each change a person (or `fill`) makes while the form is pending."""
        self._changed.append(callback)

    def values(self) -> dict[str, Any]:
        """What each field holds now (what was typed: yours to use, never logged), by property name."""
        return {name: field.value for name, field in self._fields.items()}

    def _resolve(
        self, action: Action, reason: Reason, by: str | None, note: str, *, leave_line: bool = True
    ) -> bool:
        with self._lock:
            if self._state is not FormState.PENDING:
                return False
            content = None
            if action is Action.ACCEPT:
                if not self.spec.ok:
                    return False
                checked = validate_content(self.spec, self.values())
                if not checked.ok:
                    self._refresh()
                    return False
                content = checked.content
            settled = self._settle(action, reason, by, note, content)
        # The answer goes out first (a done callback sends it to the server); tidying up the widgets
        # afterwards costs a dozen comm messages that the server need not wait for.
        self._deliver(settled)
        self._leave_one_line(leave_line and self.comm is not None)
        return True

    def _leave_one_line(self, leave_line: bool = True) -> None:
        """Replace the form by one Label (who asked, how it ended) and close every other model."""
        assert self._outcome is not None
        self._route.close()  # the shared catcher stays open for the other forms
        kit = self._kit
        if leave_line:
            text = f"{self._header}: {self._outcome.describe()}"
            line = self._message  # None while nothing has read the children (plain Python)
            if line is None or line.comm is None:
                line = kit.make(w.Label, value=text, _dom_classes=(WRAP_CLASS,))
            else:  # the message's Label (plain, wrapping) becomes the line: one model less to open
                with line.hold_sync():
                    line.value, line.tooltip = text, None
            self.children = (line,)
            kit.close(keep=(line,))
        else:
            self.children = ()
            kit.close()
        # Drop every reference to what was typed (and to the closed models).
        self._fields = {}
        self._broken = {}
        self._changed = []
        self._top = ()
        self._message = None
        self._button_box = None
        self._hint = None
