"""ElicitationForm: one elicitation request as a form a person answers with Accept / Decline / Cancel."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from enum import Enum
from typing import Any

import ipywidgets as w
import mcp_types

from .. import _bridge
from .._exceptions import FieldNotFound, FormStateError
from .._outcome import Action, Outcome, Reason, to_wire
from .._schema import FormSpec, validate_schema
from .._validation import validate_content, validate_field
from ._fields import FIRST_CLASS, FORM_CLASS, LAST_CLASS, WRAP_CLASS, Field, Kit, make_field, title_width
from ._keys import KeyCatcher

__all__ = ["ElicitationForm", "FormState"]

log = logging.getLogger("mcp_widgets")

DoneCallback = Callable[["ElicitationForm"], object]


class FormState(str, Enum):
    """Where a form is in its life: pending, then exactly one of the three answers."""

    PENDING = "pending"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"


_STATE_OF = {
    Action.ACCEPT: FormState.ACCEPTED,
    Action.DECLINE: FormState.DECLINED,
    Action.CANCEL: FormState.CANCELLED,
}


class ElicitationForm(w.VBox):
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
    def _from_spec(
        cls, message: str, spec: FormSpec, *, server: str, declared_name: str | None = None
    ) -> ElicitationForm:
        """A form for a parsed spec, even one with errors (then Accept stays disabled): for `preview`."""
        form = cls.__new__(cls)
        form._setup(message, spec, server=server, declared_name=declared_name)
        return form

    def _setup(self, message: str, spec: FormSpec, *, server: str, declared_name: str | None) -> None:
        self._lock = threading.RLock()
        self._state = FormState.PENDING
        self._outcome: Outcome | None = None
        self._result: mcp_types.ElicitResult | None = None
        self._callbacks: list[DoneCallback] = []
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[mcp_types.ElicitResult]]] = []
        self._acting: tuple[Reason, str | None] = (Reason.PERSON, None)
        self._press_resolved = False
        self._changed: list[Callable[[], object]] = []
        self.spec = spec
        self.server = server
        self.declared_name = declared_name
        self.message = message

        _bridge.attach()  # so that every keystroke reaches us even while a cell awaits this form
        # One title width for every control, so the controls of a form line up.
        kit = self._kit = Kit(description_width=title_width(spec.fields))
        try:
            self._build(message, spec, server=server, declared_name=declared_name)
        except BaseException:
            kit.close()  # leave no half-built models behind
            raise

    def _build(self, message: str, spec: FormSpec, *, server: str, declared_name: str | None) -> None:
        kit = self._kit
        self._header = header = f"Request from {server}"
        if declared_name and declared_name != server:
            self._header = header = f"{header} (calls itself “{declared_name}”)"
        top: list[w.Widget] = [kit.make(w.Label, value=header, variant="bold", _dom_classes=(WRAP_CLASS,))]
        if message:
            top.append(kit.make(w.Label, value=message, tooltip=message, _dom_classes=(WRAP_CLASS,)))

        self._fields: dict[str, Field] = {}
        for spec_field in spec.fields:
            self._fields[spec_field.name] = make_field(spec_field, kit)
        fields = list(self._fields.values())
        if fields:
            fields[0].control.add_class(FIRST_CLASS)
            fields[-1].control.add_class(LAST_CLASS)

        self._accept = kit.make(w.Button, description="Accept", button_style="primary", icon="check")
        self._decline = kit.make(w.Button, description="Decline", icon="times", tooltip="Tell the server no")
        self._cancel = kit.make(w.Button, description="Cancel", tooltip="Dismiss without answering")
        for action, button in self._buttons().items():
            button.on_click(lambda _button, action=action: self._clicked(action))
        buttons = kit.make(w.HBox, children=(self._accept, self._decline, self._cancel))
        self._keys = kit.make(KeyCatcher, layout="hidden")
        self._keys.on_msg(self._on_key)

        for field in fields:
            field.control.observe(lambda _change, field=field: self._on_change(field), names="value")
        self._refresh()

        children = [*top]
        for field in fields:
            children += [field.control, field.note]
        super().__init__(
            children=(*children, buttons, self._keys),
            layout=kit.layout(),
            _view_count=0,
            _dom_classes=(FORM_CLASS,),
        )

    # -- what the form shows ---------------------------------------------------------------------------------
    @property
    def state(self) -> FormState:
        """PENDING until answered, then ACCEPTED, DECLINED or CANCELLED for good."""
        return self._state

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

    @property
    def result(self) -> mcp_types.ElicitResult | None:
        """What the server receives, or None while pending."""
        return self._result

    @property
    def outcome(self) -> Outcome | None:
        """How the request ended, or None while pending."""
        return self._outcome

    @property
    def view_count(self) -> int | None:
        """How many views the browser has rendered (0 until some front-end shows the form)."""
        return self._view_count

    def __repr__(self) -> str:
        return f"<ElicitationForm server={self.server!r} fields={len(self.spec.fields)} {self._state.value}>"

    # -- driving it as a person would ------------------------------------------------------------------------
    def fill(self, **values: Any) -> None:
        """Enter values as a person would: through each control's front-end path (`set_state`).

        Raises:
            FieldNotFound: A name the form has no field for.
            FormStateError: The form is already resolved.
            TypeError, ValueError: A value no person could enter in that control (nothing is set then).
        """
        if self._state is not FormState.PENDING:
            raise FormStateError(f"the form is already {self._state.value}")
        states = []
        for name, value in values.items():
            if name not in self._fields:
                raise FieldNotFound(name, self.field_names)
            field = self._fields[name]
            states.append((field, field.state_for(value)))
        for field, state in states:
            field.control.set_state(state)

    def accept(self) -> bool:
        """Click Accept; does nothing (False) while it is disabled or once the form is resolved."""
        return self._press(self._accept)

    def decline(self) -> bool:
        """Click Decline; False once the form is resolved."""
        return self._press(self._decline)

    def cancel(self) -> bool:
        """Click Cancel; False once the form is resolved."""
        return self._press(self._cancel)

    @contextlib.contextmanager
    def acting_as(self, reason: Reason | str, by: str | None = None) -> Iterator[ElicitationForm]:
        """Clicks made inside are recorded as `reason` / `by` (e.g. a handler) instead of the person."""
        previous = self._acting
        self._acting = (Reason(reason), by)
        try:
            yield self
        finally:
            self._acting = previous

    def finish(
        self,
        action: Action | str,
        *,
        reason: Reason | str = Reason.HANDLER,
        by: str | None = None,
        note: str = "",
    ) -> bool:
        """End the form without a click (server withdrew, timeout, interrupt, policy).

        An accept only succeeds when the form is valid. Returns whether this call resolved the form.
        """
        return self._resolve(Action(action), Reason(reason), by, note)

    # -- waiting for the answer ------------------------------------------------------------------------------
    async def wait(self) -> mcp_types.ElicitResult:
        """The result, once the form resolves (from any asyncio loop, in any thread)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[mcp_types.ElicitResult] = loop.create_future()
        with self._lock:
            if self._result is not None:
                return self._result
            self._waiters.append((loop, future))
        return await future

    def add_done_callback(self, fn: DoneCallback) -> None:
        """Call `fn(form)` once when the form resolves (at once if it already has)."""
        with self._lock:
            if self._state is FormState.PENDING:
                self._callbacks.append(fn)
                return
        self._call(fn)

    def close(self) -> None:
        """Close every model the form still holds (a pending form is cancelled first)."""
        if getattr(self, "_state", None) is FormState.PENDING and self.comm is not None:
            # No closing line: everything goes (and nothing new is created, even from __del__).
            self._resolve(Action.CANCEL, Reason.HANDLER, None, "the form was closed", leave_line=False)
        kit = getattr(self, "_kit", None)
        if kit is not None:
            kit.close()
        super().close()

    # -- internals -------------------------------------------------------------------------------------------
    def _press(self, button: w.Button) -> bool:
        """Click a button through its front-end message path; a disabled button does nothing."""
        if self._state is not FormState.PENDING or button.disabled:
            return False
        self._press_resolved = False
        button._handle_custom_msg({"event": "click"}, [])
        return self._press_resolved

    def _clicked(self, action: Action) -> None:
        button = self._buttons()[action]
        if button.disabled:  # a stale click from a browser that had not yet seen the update
            return
        reason, by = self._acting
        self._press_resolved = self._resolve(action, reason, by, "")

    def _buttons(self) -> dict[Action, w.Button]:
        return {Action.ACCEPT: self._accept, Action.DECLINE: self._decline, Action.CANCEL: self._cancel}

    def _on_key(self, _widget: w.Widget, content: Any, _buffers: Any) -> None:
        if not isinstance(content, dict):
            return
        if content.get("key") == "Escape":
            self._press(self._cancel)
        elif content.get("key") == "Enter" and content.get("in_last_field") is True:
            self._press(self._accept)

    def _on_change(self, field: Field) -> None:
        if self._state is not FormState.PENDING:
            return
        field.touched = True
        self._refresh()
        for fn in self._changed:
            fn()

    def _refresh(self) -> None:
        """Re-validate: update every note, and enable Accept only when all is well."""
        invalid = []
        for field in self._fields.values():
            error = validate_field(field.spec, field.value)
            field.show(error)
            if error:
                invalid.append(field.spec.title)
        ok = self.spec.ok and not invalid
        self._accept.disabled = not ok
        if not self.spec.ok:
            self._accept.tooltip = "This request cannot be accepted: its schema is invalid"
        elif invalid:
            self._accept.tooltip = "Still to fix: " + ", ".join(invalid)
        else:
            self._accept.tooltip = f"Send the answers to {self.server}"

    def _values(self) -> dict[str, Any]:
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
                checked = validate_content(self.spec, self._values())
                if not checked.ok:
                    self._refresh()
                    return False
                content = checked.content
            self._state = _STATE_OF[action]
            self._outcome = Outcome(action, reason, by, note)
            self._result = mcp_types.ElicitResult.model_validate(to_wire(action, content))
            callbacks, self._callbacks = self._callbacks, []
            waiters, self._waiters = self._waiters, []
        # The answer goes out first (a done callback sends it to the server); tidying up the widgets
        # afterwards costs a dozen comm messages that the server need not wait for.
        for loop, future in waiters:
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody is waiting there any more
                loop.call_soon_threadsafe(_settle, future, self._result)
        for fn in callbacks:
            self._call(fn)
        self._leave_one_line(leave_line and self.comm is not None)
        return True

    def _leave_one_line(self, leave_line: bool = True) -> None:
        """Replace the form by one Label (who asked, how it ended) and close every other model."""
        assert self._outcome is not None
        kit = self._kit
        if leave_line:
            text = f"{self._header}: {self._outcome.describe()}"
            line = kit.make(w.Label, value=text, _dom_classes=(WRAP_CLASS,))
            self.children = (line,)
            kit.close(keep=(line, kit.layout(), kit.style(w.Label)))
        else:
            self.children = ()
            kit.close()
        # Drop every reference to what was typed.
        self._fields = {}
        self._changed = []

    def _call(self, fn: DoneCallback) -> None:
        try:
            fn(self)
        except Exception:
            log.exception("a done callback of an elicitation form failed")


def _settle(future: asyncio.Future[mcp_types.ElicitResult], result: mcp_types.ElicitResult) -> None:
    if not future.done():
        future.set_result(result)
