"""ElicitationForm: one elicitation request as one widget model, answered with Accept, Decline or Cancel.

One concept: the question card as ONE anywidget. Its synced state holds only what the server sent and the
kernel decided (the card: who asks, the message, each field's spec; the verdict per field, whether Accept is
enabled and why not, the keys hint, the closing line). What a person types never becomes synced state: the
page (`assets/fields.js`, `assets/question.js`) sends each edit and each button as a custom message, the
kernel checks it (`core.validation`) and answers by updating the verdicts; a value filled from Python goes
to the page as a custom message, and a view that renders later asks for the current values. So a notebook
saved with widget state never holds a typed value.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import ipywidgets as w
import traitlets as t

from .. import kernel
from ..core.exceptions import FieldNotFound, FormStateError
from ..core.outcome import Action, Outcome, Reason
from ..core.schema import validate_schema
from ..core.spec import FieldSpec, FormSpec
from ..core.text import shown
from ..core.validation import validate_content, validate_field
from ._answerable import Answering, FormState
from ._field_specs import field_spec, first_value, from_page, from_python, shown_error, to_page
from ._fields import title_width
from ._keys import DeclaredAnyWidget
from ._keys_assets import QUESTION_CSS, QUESTION_ESM
from ._kit import Kit, asker, known_keys

__all__ = ["ElicitationForm", "FormState"]

KEYS_HINT = "Keys: Enter in the last field accepts · Esc cancels"
"""Under a form's buttons: Accept by keyboard is a deliberate key on the form itself (see keys.js)."""
KEYS_HINT_NO_FIELDS = "Keys: Tab to Accept and press Enter · Esc cancels"
"""The same, for a form without fields (a confirmation)."""
KEYS_HINT_APP = "Keys: the app answers with its own controls · Esc cancels"
"""The same while a server's app shows the question: its keys stay inside its frame, and Accept is its own."""
ESCAPE_AGAIN = "Press Esc again to cancel: what you typed will be discarded"
"""Shown instead of the hint after a first Escape on a form with typed input."""
_LAYOUT = Kit()
_PRESSES = {"accept": Action.ACCEPT, "decline": Action.DECLINE, "cancel": Action.CANCEL}


class ElicitationForm(Answering, DeclaredAnyWidget):
    """A form for one elicitation request, shown inline where the request was made.

    It names the server that asks, shows the message and one control per field (as plain text: a server
    controls them), and resolves exactly once. When it resolves, one plain line is left in its place saying
    who asked and how it ended, never what was typed. It is one widget model (see the module docstring).

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

    _esm = t.Unicode(QUESTION_ESM, help="The card's front end: fields.js, question.js, keys.js.").tag(
        sync=True
    )
    _css = t.Unicode(QUESTION_CSS, help="The card's look (JupyterLab's CSS variables, with fallbacks).").tag(
        sync=True
    )
    _anywidget_id = t.Unicode("mcp_widgets.ElicitationForm", help="anywidget's name for this class.").tag(
        sync=True
    )
    card = t.Dict(
        help="What the server sent, as the page renders it: header, message, fields (no values)."
    ).tag(sync=True)
    verdicts = t.Dict(help="The error line to show under each field that has one, by field name.").tag(
        sync=True
    )
    accept_ok = t.Bool(False, help="Whether Accept is enabled.").tag(sync=True)
    accept_why = t.Unicode("", help="Accept's tooltip: what it sends to, or what is still to fix.").tag(
        sync=True
    )
    hint = t.Unicode(
        "", help="The line under the buttons: which keys answer, or why the plain form is back."
    ).tag(sync=True)
    hint_warn = t.Bool(False, help="Whether the hint line is a warning (shown as an error).").tag(sync=True)
    closing_line = t.Unicode("", help="Once resolved, the one line left: who asked and how it ended.").tag(
        sync=True
    )
    app = t.Instance(w.Widget, allow_none=True, help="A server's app showing the question (`embed`).").tag(
        sync=True, **w.widget_serialization
    )

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
        """A form a handler answers (the client builds these when a handler is chosen, `questions.intake`).

        It is the same one model as any form: nothing is left to make later.
        """
        spec = validate_schema(requested_schema)
        return cls.from_spec(message, spec, server=server, declared_name=declared_name)

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
        """A form for a parsed spec, even one with errors (then Accept stays disabled): for `preview`.

        `lazy` is accepted for the callers of the composed form; one model has nothing to make later.
        """
        form = cls.__new__(cls)
        form._setup(message, spec, server=server, declared_name=declared_name)
        return form

    def _setup(self, message: str, spec: FormSpec, *, server: str, declared_name: str | None) -> None:
        self._start()
        self._changed: list[Callable[[], object]] = []
        self.spec = spec
        self.server = server
        self.declared_name = declared_name
        self.message = message
        self._header = f"Request from {asker(server, declared_name)}"
        self._specs: dict[str, FieldSpec] = {f.name: f for f in spec.fields}
        self._values: dict[str, Any] = {name: first_value(f) for name, f in self._specs.items()}
        self._touched: set[str] = set()
        self._told: Outcome | None = None  # what the closing line tells instead (`retell`)
        self._line_left = False
        self._escape_armed = False  # a first Escape on a form with typed input: the next one cancels
        self._armed_edits: int | None = None  # the browser's count of edits at that first Escape
        kernel.attach()  # so that every message reaches us even while a cell awaits this form
        verdicts, ok, why = self._check()
        model_id = uuid.uuid4().hex  # chosen here, so the card can name it (its option groups' names)
        super().__init__(
            card={**self._card(message, spec), "id": model_id},
            verdicts=verdicts,
            accept_ok=ok,
            accept_why=why,
            hint=self._keys_hint(),
            _view_count=0,
            model_id=model_id,
            layout=_LAYOUT.layout(),  # the process's shared Layout: one model per question
            **known_keys(type(self)),
        )
        self.on_msg(self._receive)

    def _card(self, message: str, spec: FormSpec) -> dict[str, Any]:
        """The card the page renders: server text only, each made `shown` (control characters visible)."""
        props = spec.schema.get("properties") if isinstance(spec.schema, Mapping) else None
        order = list(props) if isinstance(props, Mapping) else []
        problems: dict[str, list[str]] = {}
        for problem in spec.problems:
            if problem.severity == "error" and problem.property is not None:
                text = shown(f"⚠ Error: property {problem.property!r}: {problem.message}")
                problems.setdefault(problem.property, []).append(text)
        rows: list[dict[str, Any]] = []
        for name in dict.fromkeys([*order, *self._specs]):  # the schema's order
            field = self._specs.get(name)
            if field is not None:
                rows.append({**field_spec(field), "value": to_page(field, self._values[name])})
            rows += [{"widget": "problem", "note": text} for text in problems.get(name, ())]
        return {
            "header": shown(self._header),
            "message": shown(message),
            "title_width": title_width(spec.fields),
            "rows": rows,
        }

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
        for name, spec in self._specs.items():
            error = validate_field(spec, self._values[name])
            if error:
                found[name] = error
        return found

    @property
    def embedded(self) -> bool:
        """An app shows the question (the fields wait behind "Use the plain form")."""
        return self.app is not None

    def __repr__(self) -> str:
        return f"<ElicitationForm server={self.server!r} fields={len(self.spec.fields)} {self._state.value}>"

    def values(self) -> dict[str, Any]:
        """What each field holds now (what was typed: yours to use, never logged), by property name."""
        return dict(self._values)

    # -- driving it as a person would ------------------------------------------------------------------------
    def fill(self, /, **values: Any) -> None:
        """Enter values as a person would; every value is checked before any is entered.

        Raises:
            FieldNotFound: A name the form has no field for.
            FormStateError: The form is already resolved.
            TypeError, ValueError: A value no person could enter in that control (nothing is set then).
        """
        if self._state is not FormState.PENDING:
            raise FormStateError(f"the form is already {self._state.value}")
        checked = {}
        for name, value in values.items():
            spec = self._specs.get(name)
            if spec is None:
                raise FieldNotFound(name, tuple(self._specs))
            checked[name] = from_python(spec, value)
        if not checked:
            return
        self._values.update(checked)
        self._tell_page({name: to_page(self._specs[name], v) for name, v in checked.items()})
        self._edited(checked)

    def accept(self) -> bool:
        """Click Accept; does nothing (False) while it is disabled or once the form is resolved."""
        return self._press_action(Action.ACCEPT)

    def on_change(self, callback: Callable[[], object]) -> None:
        """Call `callback` after each change a person (or `fill`) makes while the form is pending."""
        self._changed.append(callback)

    def embed(self, widget: w.Widget) -> None:
        """Show `widget` (the server's app for this question) instead of the fields and Accept; Decline and
        Cancel stay, and a "Use the plain form" button brings the fields back (`use_plain_form`)."""
        if self._state is not FormState.PENDING:
            return
        with self.hold_sync():
            self.app = widget
            self._show_hint(self._keys_hint())

    def use_plain_form(self, why: str | None = None) -> None:
        """Show the fields and Accept again (the app stays away); `why` goes on the hint line as a warning."""
        if self._state is not FormState.PENDING or self.app is None:
            return
        with self.hold_sync():
            self.app = None
            if why:
                self._show_hint(shown(why), warn=True)
            else:
                self._show_hint(self._keys_hint())

    # -- the page's messages ---------------------------------------------------------------------------------
    def _receive(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """One message from a view: an edit, a button, a key, or "ready" (a view that wants the values)."""
        if not isinstance(content, dict) or self._state is not FormState.PENDING:
            return
        if "edit" in content:
            self._page_edit(content)
        elif "press" in content:
            press = content["press"]
            if press == "plain":
                self.use_plain_form()
            elif press in _PRESSES:
                self._clicked(_PRESSES[press])
        elif "key" in content:
            self._on_key(content)
        elif content.get("ready") is True:
            changed = {n: to_page(self._specs[n], self._values[n]) for n in self._touched}
            if changed:
                self.send({"values": changed})

    def _page_edit(self, content: dict[str, Any]) -> None:
        name = content.get("edit")
        spec = self._specs.get(name) if isinstance(name, str) else None
        if spec is None:
            return
        try:
            value = from_page(spec, content.get("value"))
        except ValueError:
            return  # not what our page sends: ignored, as a stock model ignores a bad state
        self._values[spec.name] = value
        if self._view_count is None or self._view_count > 1:  # another view shows the same form
            self._tell_page({spec.name: to_page(spec, value)}, but=content.get("view"))
        self._edited({spec.name: value})

    def _tell_page(self, values: dict[str, Any], but: object = None) -> None:
        """Send values to the views (a custom message: never state); `but` names the view that typed them."""
        if self.comm is not None:
            self.send({"values": values, "except": but} if isinstance(but, str) else {"values": values})

    def _edited(self, values: dict[str, Any]) -> None:
        self._touched.update(values)
        # Typing on after a first Escape: the next Escape asks again. With the browser's count of edits the
        # count decides (this change may be one typed before that Escape, arriving late).
        if self._escape_armed and self._armed_edits is None:
            self._escape_armed = False
            self._show_hint(self._keys_hint())
        self._refresh()
        for fn in list(self._changed):
            fn()

    def _on_key(self, content: dict[str, Any]) -> None:
        # The browser sends Escape only from a form the person engaged (keys.js), with "typed" once they
        # typed or changed something there.
        if content.get("key") == "Escape":
            edits = content.get("edits")
            self._escape(
                typed=content.get("typed") is True,
                edits=edits if isinstance(edits, int) and not isinstance(edits, bool) else None,
            )
        elif content.get("key") == "Enter" and content.get("in_last_field") is True:
            self._press_action(Action.ACCEPT)  # the edits came first, on this same comm

    def _escape(self, *, typed: bool = False, edits: int | None = None) -> None:
        """Cancel an untouched form; on one with typed input, ask for a second Escape first.

        `edits`: the browser's count of the person's edits in the form: the second Escape cancels when the
        count is the same (nothing was typed between the two).
        """
        if self._state is not FormState.PENDING:
            return
        typed = typed or bool(self._touched)
        again = self._escape_armed and (edits is None or edits == self._armed_edits)
        if typed and not again:
            self._escape_armed, self._armed_edits = True, edits
            self._show_hint(ESCAPE_AGAIN, warn=True)
            return
        self._press_action(Action.CANCEL)

    def _keys_hint(self) -> str:
        """The line under the buttons that says which keys answer."""
        if self.app is not None:
            return KEYS_HINT_APP
        return KEYS_HINT if self.spec.fields else KEYS_HINT_NO_FIELDS

    def _show_hint(self, text: str, *, warn: bool = False) -> None:
        if (self.hint, self.hint_warn) != (text, warn):
            with self.hold_sync():  # one message for both
                self.hint, self.hint_warn = text, warn

    # -- checking --------------------------------------------------------------------------------------------
    def _check(self) -> tuple[dict[str, str], bool, str]:
        """The verdict line of each field (once due), whether Accept is enabled, and its tooltip."""
        verdicts: dict[str, str] = {}
        invalid = []
        for name, spec in self._specs.items():
            value = self._values[name]
            error = validate_field(spec, value)
            if error:
                invalid.append(spec.title)
                line = shown_error(spec, error, value, name in self._touched)
                if line:
                    verdicts[name] = line
        if not self.spec.ok:
            return verdicts, False, "This request cannot be accepted: its schema is invalid"
        if invalid:
            return verdicts, False, shown("Still to fix: " + ", ".join(invalid))
        return verdicts, True, shown(f"Send the answers to {self.server}")

    def _refresh(self) -> None:
        """Re-validate: update the verdicts, and enable Accept only when all is well (one message)."""
        verdicts, ok, why = self._check()
        with self.hold_sync():
            if verdicts != self.verdicts:
                self.verdicts = verdicts
            if (ok, why) != (self.accept_ok, self.accept_why):
                self.accept_ok, self.accept_why = ok, why

    # -- answering -------------------------------------------------------------------------------------------
    def _press_action(self, action: Action) -> bool:
        if not self._answerable() or (action is Action.ACCEPT and not self.accept_ok):
            return False
        reason, by = self._acting
        return self._resolve(action, reason, by, "")

    def _clicked(self, action: Action) -> None:
        """A button pressed on the page (a stale Accept, from a page that had not yet seen it disabled, is
        refused by `_press_action`)."""
        self._press_action(action)

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
        # The answer goes out first (a done callback sends it to the server); the closing line after.
        self._deliver(settled, stop_views=False)  # the closing update stops them, in its one message
        self._leave_one_line(leave_line and self.comm is not None)
        return True

    def retell(self, outcome: Outcome) -> None:
        """The closing line tells `outcome` instead of how the form ended (an answer whose round expired
        meanwhile), whether that line is written yet or not."""
        with self._lock:
            self._told = outcome
            if not self._line_left:
                return  # not written yet: `_leave_one_line` tells it
            text = shown(f"{self._header}: {outcome.describe()}")
        self.closing_line = text

    def _leave_one_line(self, leave_line: bool = True) -> None:
        """Leave one line (who asked, how it ended) and nothing else: the page shows only that."""
        assert self._outcome is not None
        # Drop every reference to what was typed.
        self._values = {}
        self._touched = set()
        self._changed = []
        if self.comm is None:
            self._stop_counting_views()
            return
        with self._lock:  # `retell` may come from the client thread meanwhile
            self._line_left = leave_line
            told = self._told or self._outcome
            text = f"{self._header}: {told.describe()}" if leave_line else ""
        with self.hold_sync():
            self._stop_counting_views()
            self.closing_line = shown(text)
            self.card = {}
            self.verdicts = {}
            self.app = None
            self.accept_ok = False
            self.accept_why = self.hint = ""
