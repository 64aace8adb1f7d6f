"""The `Field` base: a control a person edits, the note line under it (description, hint, error)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import ipywidgets as w

from ..core.spec import MISSING, FieldSpec
from ._kit import WRAP_CLASS, Kit

Validator = Callable[[FieldSpec, Any], "str | None"]
"""Checks a field's value: the error message, or None."""


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == ()


class Field:
    """A field of a form: the control a person edits and the note line under it.

    With `lazy_note`, the note Label is only made once there is something to say (a description, a
    hint or an error): until then `note` is None and `views()` is just the control.
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
        # An explicit tooltip: unset, some stock views (radio buttons, date pickers) show the word "null".
        # Traits left at the class default are not passed: each one passed costs a validation round.
        traits = self._traits()
        if classes:
            traits["_dom_classes"] = classes
        title = display_title(spec)
        self.control: w.Widget = kit.make(
            self._control_class(), description=title, tooltip=spec.description or spec.title, **traits
        )
        self._kit = kit
        # The note is built as it first shows (with `validate`), not updated right after: one message less.
        self.error = None if validate is None else validate(spec, self.value)
        """The value's error when last checked (`validate`, `show`), or None; the note shows it once due."""
        text = self._note_text(self.error)
        self.note: w.Label | None = None if lazy_note and not text else self._make_note(text)
        """The line under the control (None while a lazy note has had nothing to say)."""

    def _control_class(self) -> type[w.Widget]:
        return self.control_cls

    def views(self) -> tuple[w.Widget, ...]:
        """What the field shows in its form, in order: the control, and its note once it exists."""
        return (self.control,) if self.note is None else (self.control, self.note)

    def _make_note(self, text: str) -> w.Label:
        return self._kit.make(
            w.Label, layout="note" if text else "hidden", value=text, _dom_classes=(WRAP_CLASS,)
        )

    # -- per kind --------------------------------------------------------------------------------------------
    def _traits(self) -> dict[str, Any]:
        """Traits of the control: the initial value (the default, if any) and hints; not class defaults."""
        return {} if self.spec.default is MISSING else {"value": str(self.spec.default)}

    def _hint(self) -> str:
        """Extra help shown in the note, e.g. how to select several."""
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

    # -- shared ----------------------------------------------------------------------------------------------
    def show(self, error: str | None) -> bool:
        """Update the note: description, hint, and the error once it should be visible.

        Returns whether a (lazy) note was made just now: then the form must place it under the control.
        """
        self.error = error
        text = self._note_text(error)
        note = self.note
        if note is None:
            if not text:
                return False
            self.note = self._make_note(text)
            return True
        layout = self._kit.layout("note" if text else "hidden")
        if note.value != text or note.layout is not layout:
            with note.hold_sync():  # one message for both
                note.value = text
                note.layout = layout
        return False

    def _note_text(self, error: str | None) -> str:
        visible_error = error if error and (self.touched or not _is_empty(self.value)) else None
        # A required field is marked by the " *" after its title: a note only for that would cost a model.
        parts = []
        hint = self._hint()
        description = self.spec.description
        if description:
            # A hint follows as its own sentence, so a description without a full stop does not run into it.
            ends_sentence = description.rstrip()[-1:] in ".!?:;…"
            parts.append(description if not hint or ends_sentence else description.rstrip() + ".")
        if hint:
            parts.append(hint)
        text = " ".join(parts)
        if visible_error:
            text = f"{text} — ⚠ Error: {visible_error}" if text else f"⚠ Error: {visible_error}"
        return text


def display_title(spec: FieldSpec) -> str:
    """The title a control shows: the field's title, and " *" when it is required."""
    return spec.title + (" *" if spec.required else "")
