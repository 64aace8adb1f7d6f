"""The `Field` base: a control a person edits, the note line under it (description, hint), its error line."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import ipywidgets as w

from ..core.exceptions import FieldNotFound
from ..core.spec import MISSING, FieldSpec
from ._kit import ERROR_CLASS, INVALID_CLASS, WRAP_CLASS, Kit

Validator = Callable[[FieldSpec, Any], "str | None"]
"""Checks a field's value: the error message, or None."""

_PATTERN_ERROR = "must match the pattern "


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == ()


class Field:
    """A field of a form: the control a person edits, the note line under it and, once due, its error line.

    With `lazy_note`, the note Label is only made once there is something to say (a description or a
    hint): until then `note` is None. The error line (`alert`) is always made only once an error shows.
    """

    control_cls: ClassVar[type[w.Widget]] = w.Text

    def __init__(
        self,
        spec: FieldSpec,
        kit: Kit,
        *,
        classes: tuple[str, ...] = (),
        validate: Validator | None = None,
        lazy_note: bool = False,
    ) -> None:
        self.spec = spec
        self.touched = False
        """Whether the value changed since the form was built (errors show once touched or non-empty)."""
        self._kit = kit
        self.control: w.Widget = self._make_control(classes)
        # The lines are built as they first show (with `validate`), not updated right after: a message less.
        self.error = None if validate is None else validate(spec, self.value)
        """The value's error when last checked (`validate`, `show`), or None; shown once due."""
        shown = self._shown_error(self.error, self.value)
        if shown:  # a default the schema refuses (rare): marked from the start
            self.control.add_class(INVALID_CLASS)
        text = self._note_text()
        self.note: w.Label | None = None if lazy_note and not text else self._make_note(text)
        """The line under the control (None while a lazy note has had nothing to say)."""
        self.alert: w.Label | None = None if not shown else self._make_alert(shown)
        """The error line under the note (None until an error first shows)."""

    def _make_control(self, classes: tuple[str, ...]) -> w.Widget:
        # An explicit tooltip: unset, some stock views (radio buttons, date pickers) show the word "null".
        # Traits left at the class default are not passed: each one passed costs a validation round.
        traits = self._traits()
        if classes:
            traits["_dom_classes"] = classes
        return self._kit.make(
            self._control_class(),
            description=display_title(self.spec),
            tooltip=self.spec.description or self.spec.title,
            **traits,
        )

    def _control_class(self) -> type[w.Widget]:
        return self.control_cls

    def views(self) -> tuple[w.Widget, ...]:
        """What the field shows in its form, in order: the control, its note and error line (once made)."""
        return (self.control, *(v for v in (self.note, self.alert) if v is not None))

    def on_change(self, fn: Callable[[], object]) -> None:
        """Call `fn` whenever the value changes."""
        self.control.observe(lambda _change: fn(), names="value")

    def _make_note(self, text: str) -> w.Label:
        return self._kit.make(
            w.Label, layout="note" if text else "hidden", value=text, _dom_classes=(WRAP_CLASS,)
        )

    def _make_alert(self, text: str) -> w.Label:
        return self._kit.make(
            w.Label, layout="note" if text else "hidden", value=text, _dom_classes=(WRAP_CLASS, ERROR_CLASS)
        )

    # -- per kind --------------------------------------------------------------------------------------------
    def _traits(self) -> dict[str, Any]:
        """Traits of the control: the initial value (the default, if any) and hints; not class defaults."""
        return {} if self.spec.default is MISSING else {"value": str(self.spec.default)}

    def _hint(self) -> str:
        """Extra help shown in the note, e.g. how many to pick."""
        return ""

    @property
    def value(self) -> Any:
        """The current value, in the convention `validate_field` and `build_content` expect."""
        return self.control.value

    def state_for(self, value: Any) -> dict[str, Any]:
        """The JSON state a browser sends when a person enters `value` (`fill` replays it via set_state)."""
        if not isinstance(value, str):
            raise TypeError(f"field {self.spec.name!r} takes a str")
        return {"value": value}

    def enter(self, value: Any) -> Callable[[], None]:
        """Check `value` now (TypeError, ValueError as `state_for`); the returned call enters it."""
        state = self.state_for(value)
        return lambda: self.control.set_state(state)

    # -- shared ----------------------------------------------------------------------------------------------
    def show(self, error: str | None) -> bool:
        """Update the note and the error line (once the error should be visible), and the control's mark.

        Returns whether a line was made just now: then the form must place it under the control.
        """
        self.error = error
        made = False
        text = self._note_text()
        if self.note is None:
            if text:
                self.note = self._make_note(text)
                made = True
        else:
            made |= self._update(self.note, text)
        shown = self._shown_error(error, self.value)
        if self.alert is None:
            if shown:
                self.alert = self._make_alert(shown)
                made = True
        else:
            self._update(self.alert, shown)
        invalid = INVALID_CLASS in self.control._dom_classes
        if bool(shown) != invalid:
            (self.control.add_class if shown else self.control.remove_class)(INVALID_CLASS)
        return made

    def _update(self, label: w.Label, text: str) -> bool:
        layout = self._kit.layout("note" if text else "hidden")
        if label.value != text or label.layout is not layout:
            with label.hold_sync():  # one message for both
                label.value = text
                label.layout = layout
        return False

    def _shown_error(self, error: str | None, value: Any) -> str:
        """The error line's text: empty until the field is touched or holds something."""
        if not error or not (self.touched or not _is_empty(value)):
            return ""
        if error.startswith(_PATTERN_ERROR) and (self.spec.description or "").strip():
            # Not a raw regex where a description is there to read; it need not say the form, so this
            # does not claim it does. Without one (or a blank one), the pattern is all there is to go by.
            error = "does not have the form this field asks for"
        return f"⚠ Error: {error}"

    def _note_text(self) -> str:
        # A required field is marked by the " *" after its title: a note only for that would cost a model.
        return joined_note(self.spec.description, self._hint())


def joined_note(description: str | None, hint: str) -> str:
    """A field's note: the server's description, then the hint as a sentence of its own (a description
    without a full stop gets one, so the two do not run together)."""
    parts = []
    if description:
        ends_sentence = description.rstrip()[-1:] in ".!?:;…"
        parts.append(description if not hint or ends_sentence else description.rstrip() + ".")
    if hint:
        parts.append(hint)
    return " ".join(parts)


def display_title(spec: FieldSpec) -> str:
    """The title a control shows, and " *" when it is required (not for a lone checkbox: unticked is an
    answer too, so "required" only means the answer is sent)."""
    return spec.title + (" *" if spec.required and spec.kind != "boolean" else "")


def fill_fields(
    fields: Mapping[str, Field], values: Mapping[str, Any], convert: Callable[[str, Any], Any] | None = None
) -> None:
    """Enter `values` as a person would, through each control's front-end path; every value is checked
    (FieldNotFound, TypeError, ValueError) before any is entered. `convert(name, value)` comes first."""
    entries = []
    for name, value in values.items():
        field = fields.get(name)
        if field is None:
            raise FieldNotFound(name, tuple(fields))
        entries.append(field.enter(value if convert is None else convert(name, value)))
    for enter in entries:
        enter()
