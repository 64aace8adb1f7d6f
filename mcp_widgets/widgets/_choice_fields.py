"""The choice fields: one of several (radio buttons, a dropdown), several of several (checkboxes, a list)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, ClassVar

import ipywidgets as w

from ..core.spec import MISSING, FieldSpec
from ._field import Field, display_title

CHECKS_CLASS = "mcp-widgets-checks"
"""The row of a multi-select shown as checkboxes (the title, then the column of boxes)."""
CHOICES_CLASS = "mcp-widgets-choices"
TITLE_CLASS = "mcp-widgets-title"
"""A title Label in the form's title column (a control whose stock view has no title of its own)."""


class ChoiceField(Field):
    """Single-select: RadioButtons for up to five choices, else a Dropdown; options show titles, send values.

    An optional field gets a leading "(no answer)" option, so an answer can be taken back.
    """

    MAX_RADIO: ClassVar[int] = 5
    NO_ANSWER: ClassVar[str] = "(no answer)"

    def _control_class(self) -> type[w.Widget]:
        control: type[w.Widget] = w.RadioButtons if len(self.spec.choices) <= self.MAX_RADIO else w.Dropdown
        return control

    def _options(self) -> list[tuple[str, Any]]:
        options: list[tuple[str, Any]] = [(c.title, c.value) for c in self.spec.choices]
        # Not None: a selection whose value is None is taken by ipywidgets for no selection (it sends index
        # null back, and the browser redraws the buttons, unchecked, dropping the focus the arrows were on).
        return options if self.spec.required else [(self.NO_ANSWER, _NO_ANSWER), *options]

    def _traits(self) -> dict[str, Any]:
        values = [v for _, v in self._options()]
        default = self.spec.default
        if default is MISSING or default is None:
            default = _NO_ANSWER
        index = values.index(default) if default in values else None
        return {"options": self._options(), "index": index}

    @property
    def value(self) -> Any:
        value = self.control.value
        return None if value is _NO_ANSWER else value

    def state_for(self, value: Any) -> dict[str, Any]:
        values = [v for _, v in self._options()]
        if value is None:
            return {"index": values.index(_NO_ANSWER) if _NO_ANSWER in values else None}
        if value not in values:
            raise ValueError(f"field {self.spec.name!r} has no such choice")
        return {"index": values.index(value)}


class _NoAnswer:
    """The value of an optional choice's "(no answer)" option: the field's value is None."""

    def __repr__(self) -> str:
        return "(no answer)"


_NO_ANSWER = _NoAnswer()


class MultiField(Field):
    """Multi-select of many choices: a SelectMultiple showing titles, sending the `const` values (a tuple)."""

    control_cls = w.SelectMultiple

    def _traits(self) -> dict[str, Any]:
        options = [(c.title, c.value) for c in self.spec.choices]
        values = [v for _, v in options]
        default = () if self.spec.default is MISSING else tuple(self.spec.default)
        return {
            "options": options,
            "index": tuple(values.index(v) for v in default if v in values),
            "rows": min(max(len(options), 2), 8),
        }

    def _hint(self) -> str:
        return f"{pick_text(self.spec)} Ctrl/⌘-click to choose several."

    def state_for(self, value: Any) -> dict[str, Any]:
        return {"index": [self._index(c) for c in self._chosen(value)]}

    def _chosen(self, value: Any) -> list[Any]:
        if isinstance(value, str) or not isinstance(value, Iterable):
            raise TypeError(f"field {self.spec.name!r} takes a list of choices")
        chosen = list(value)
        values = [c.value for c in self.spec.choices]
        if any(v not in values for v in chosen):
            raise ValueError(f"field {self.spec.name!r} has no such choice")
        return chosen

    def _index(self, value: Any) -> int:
        return [c.value for c in self.spec.choices].index(value)


class CheckboxesField(MultiField):
    """Multi-select of up to `MAX_BOXES` choices: a Checkbox per choice, beside the title (value: a tuple).

    A ticked box says "chosen" in light and dark themes alike, and one click toggles it (no Ctrl/⌘).
    """

    MAX_BOXES: ClassVar[int] = 8

    def _make_control(self, classes: tuple[str, ...]) -> w.Widget:
        kit = self._kit
        default = () if self.spec.default is MISSING else tuple(self.spec.default)
        self._boxes: list[tuple[Any, w.Checkbox]] = []
        for choice in self.spec.choices:
            checked: dict[str, Any] = {"value": True} if choice.value in default else {}
            box = kit.make(
                w.Checkbox, description=choice.title, indent=False, tooltip=choice.title, **checked
            )
            self._boxes.append((choice.value, box))
        title = kit.make(w.Label, layout="title", value=display_title(self.spec), _dom_classes=(TITLE_CLASS,))
        column = kit.make(w.VBox, children=tuple(b for _, b in self._boxes), _dom_classes=(CHOICES_CLASS,))
        return kit.make(w.HBox, children=(title, column), _dom_classes=(*classes, CHECKS_CLASS))

    @property
    def value(self) -> tuple[Any, ...]:
        return tuple(value for value, box in self._boxes if box.value)

    def on_change(self, fn: Callable[[], object]) -> None:
        for _, box in self._boxes:
            box.observe(lambda _change: fn(), names="value")

    def _hint(self) -> str:
        return pick_text(self.spec)

    def state_for(self, value: Any) -> dict[str, Any]:
        chosen = self._chosen(value)
        return {"values": [v in chosen for v, _ in self._boxes]}

    def enter(self, value: Any) -> Callable[[], None]:
        ticks = self.state_for(value)["values"]

        def enter() -> None:
            for (_, box), ticked in zip(self._boxes, ticks, strict=True):
                box.set_state({"value": ticked})

        return enter


def pick_text(spec: FieldSpec) -> str:
    """How many to pick, as a sentence ("Pick 1 or 2.", "Pick at least 1.", "Pick any.")."""
    low, high = spec.min_items or 0, spec.max_items
    if high is not None and high < len(spec.choices):
        if low == high:
            return f"Pick {high}."
        if low:
            return f"Pick {low} or {high}." if high == low + 1 else f"Pick {low} to {high}."
        return f"Pick up to {high}."
    return f"Pick at least {low}." if low else "Pick any."
