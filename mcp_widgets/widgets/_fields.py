"""One stock control per field kind, plus the shared Layout/Style models of a form.

Fields are plain Python adapters around stock ipywidgets (no front-end code of our own): each owns a control
(whose `description` is the field's title) and one Label for its description, required marker and error.
Values follow the conventions of `mcp_widgets._validation`: str for text and numbers (so an optional number
can stay empty and bad input is reported, not clamped), `date` / aware `datetime` or None, bool, a choice
value or None, and a tuple of values for multi-select.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar, TypeVar

import ipywidgets as w

from .._schema import MISSING, FieldSpec

__all__ = ["Field", "Kit", "make_field", "title_width"]

W = TypeVar("W", bound=w.Widget)

FIRST_CLASS = "mcp-widgets-first"
LAST_CLASS = "mcp-widgets-last"
WRAP_CLASS = "mcp-widgets-wrap"
FORM_CLASS = "mcp-widgets-form"

TITLE_EM: tuple[float, float] = (4.0, 15.0)
"""The title column of a form is between these widths (em): a longer title wraps inside it."""
TITLE_GAP = "8px"
"""Between the title column and the controls (the form's CSS sets it as the titles' `margin-right`)."""


class Kit:
    """Creates every widget model of one form, shares Layout and Style models, and closes them all.

    Every model is a message to the browser, so widgets of one form share one Layout per purpose and one Style
    per style class instead of getting their own.

    Args:
        description_width: The width of every control's title (a CSS length, see `title_width`), so the
            controls of a form line up; "initial" (the default) lets each title take its natural width.
    """

    def __init__(self, description_width: str = "initial") -> None:
        self.models: list[w.Widget] = []
        self.description_width = description_width
        self._layouts: dict[str, w.Layout] = {}
        self._styles: dict[tuple[type, str], w.Widget] = {}

    def layout(self, purpose: str = "default") -> w.Layout:
        """The shared Layout for "default", "hidden" (display none: takes no space) or "note".

        A "note" (the line under a control) starts where the controls start, under the title column.
        """
        if purpose not in self._layouts:
            traits: dict[str, Any] = {}
            if purpose == "hidden":
                traits["display"] = "none"
            elif purpose == "note" and self.description_width != "initial":
                # The stock widget margin on three sides; on the left, the title column and its gap.
                traits["margin"] = (
                    "var(--jp-widgets-margin) var(--jp-widgets-margin) var(--jp-widgets-margin) "
                    f"calc(var(--jp-widgets-margin) + {self.description_width} + {TITLE_GAP})"
                )
            self._layouts[purpose] = self.track(w.Layout(**traits))
        return self._layouts[purpose]

    def style(self, widget_cls: type[w.Widget], variant: str = "") -> w.Widget:
        """The shared Style of a widget class (every title as wide as `description_width`)."""
        style_cls = widget_cls.class_traits()["style"].klass
        key = (style_cls, variant)
        if key not in self._styles:
            traits: dict[str, Any] = {}
            if "description_width" in style_cls.class_traits():
                traits["description_width"] = self.description_width
            if variant == "bold":
                traits["font_weight"] = "bold"
            self._styles[key] = self.track(style_cls(**traits))
        return self._styles[key]

    def make(self, cls: type[W], *, layout: str = "default", variant: str = "", **traits: Any) -> W:
        """Create a tracked widget that uses the shared Layout (and Style, when the class has one)."""
        if "style" in cls.class_traits():
            traits["style"] = self.style(cls, variant)
        return self.track(cls(layout=self.layout(layout), **traits))

    def track(self, widget: W) -> W:
        self.models.append(widget)
        return widget

    def close(self, *, keep: Iterable[w.Widget] = ()) -> None:
        """Close every model except `keep`, and forget them."""
        kept = {id(k) for k in keep}
        for model in self.models:
            if id(model) not in kept:
                model.close()
        self.models = [m for m in self.models if id(m) in kept]


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == ()


class Field:
    """A field of a form: the control a person edits and the note line under it."""

    control_cls: ClassVar[type[w.Widget]] = w.Text

    def __init__(self, spec: FieldSpec, kit: Kit) -> None:
        self.spec = spec
        self.touched = False
        """Whether the value changed since the form was built (errors show once touched or non-empty)."""
        # An explicit tooltip: unset, some stock views (radio buttons, date pickers) show the word "null".
        self.control: w.Widget = kit.make(
            self.control_cls,
            description=display_title(spec),
            tooltip=spec.description or spec.title,
            **self._traits(),
        )
        self.note: w.Label = kit.make(w.Label, layout="hidden", _dom_classes=(WRAP_CLASS,))
        self._kit = kit

    # -- per kind --------------------------------------------------------------------------------------------
    def _traits(self) -> dict[str, Any]:
        """Traits of the control: the initial value (the default, if any) and hints."""
        return {"value": "" if self.spec.default is MISSING else str(self.spec.default)}

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
    def show(self, error: str | None) -> None:
        """Update the note: description, the word "required", and the error once it should be visible."""
        visible_error = error if error and (self.touched or not _is_empty(self.value)) else None
        parts = []
        if self.spec.required:
            parts.append("(required)")
        if self.spec.description:
            parts.append(self.spec.description)
        if self._hint():
            parts.append(self._hint())
        text = " ".join(parts)
        if visible_error:
            text = f"{text} — ⚠ Error: {visible_error}" if text else f"⚠ Error: {visible_error}"
        self.note.value = text
        self.note.layout = self._kit.layout("note" if text else "hidden")


class TextField(Field):
    """text, email and uri: a Text box with a hint of what is expected."""

    _PLACEHOLDER: ClassVar[dict[str, str]] = {"email": "name@example.com", "uri": "https://…"}

    def _traits(self) -> dict[str, Any]:
        s = self.spec
        placeholder = self._PLACEHOLDER.get(s.kind, "")
        if not placeholder and (s.min_length is not None or s.max_length is not None):
            placeholder = _range_text(s.min_length, s.max_length, "characters")
        return {**super()._traits(), "placeholder": placeholder, "continuous_update": True}


class NumberField(Field):
    """number and integer: a Text box, so empty stays empty and bad input is reported, not clamped."""

    def _traits(self) -> dict[str, Any]:
        s = self.spec
        noun = "whole number" if s.kind == "integer" else "number"
        if s.exclusive_minimum is None and s.exclusive_maximum is None:
            bounds = _range_text(s.minimum, s.maximum, "")
        else:
            low = [f"at least {_number_text(s.minimum)}"] if s.minimum is not None else []
            low += (
                [f"more than {_number_text(s.exclusive_minimum)}"] if s.exclusive_minimum is not None else []
            )
            high = [f"at most {_number_text(s.maximum)}"] if s.maximum is not None else []
            high += (
                [f"less than {_number_text(s.exclusive_maximum)}"] if s.exclusive_maximum is not None else []
            )
            bounds = ", ".join(low + high)
        value = "" if s.default is MISSING else _number_text(s.default)
        return {
            "value": value,
            "placeholder": f"{noun}, {bounds}" if bounds else noun,
            "continuous_update": True,
        }

    def state_for(self, value: Any) -> dict[str, Any]:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = _number_text(value)
        return super().state_for(value)


class BooleanField(Field):
    """boolean: a Checkbox, indented by the title column (its title is beside the box) so it lines up."""

    control_cls = w.Checkbox

    def _traits(self) -> dict[str, Any]:
        return {
            "value": bool(self.spec.default) if self.spec.default is not MISSING else False,
            "indent": True,
        }

    def state_for(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, bool):
            raise TypeError(f"field {self.spec.name!r} takes a bool")
        return {"value": value}


class DateField(Field):
    """date: a DatePicker (value: datetime.date or None)."""

    control_cls = w.DatePicker

    def _traits(self) -> dict[str, Any]:
        return {"value": _parse_date(self.spec.default)}

    def state_for(self, value: Any) -> dict[str, Any]:
        if isinstance(value, str):
            value = _parse_date(value)
            if value is None:
                raise ValueError(f"field {self.spec.name!r} takes an ISO date (YYYY-MM-DD)")
        if isinstance(value, dt.datetime) or not (value is None or isinstance(value, dt.date)):
            raise TypeError(f"field {self.spec.name!r} takes a datetime.date, an ISO date string or None")
        # As the browser sends it: months counted from 0.
        return {
            "value": None
            if value is None
            else {"year": value.year, "month": value.month - 1, "date": value.day}
        }


class DateTimeField(Field):
    """date-time: a DatetimePicker with the browser's time zone (value: aware datetime or None)."""

    control_cls = w.DatetimePicker

    def _traits(self) -> dict[str, Any]:
        return {"value": _parse_datetime(self.spec.default)}

    def state_for(self, value: Any) -> dict[str, Any]:
        if isinstance(value, str):
            value = _parse_datetime(value)
            if value is None:
                raise ValueError(f"field {self.spec.name!r} takes an ISO date-time")
        if not (value is None or isinstance(value, dt.datetime)):
            raise TypeError(f"field {self.spec.name!r} takes a datetime, an ISO date-time string or None")
        if value is None:
            return {"value": None}
        # A naive time is read as the kernel's local time, as a browser reads what a person types.
        utc = (value if value.tzinfo else value.astimezone()).astimezone(dt.timezone.utc)
        return {
            "value": {
                "year": utc.year,
                "month": utc.month - 1,
                "date": utc.day,
                "hours": utc.hour,
                "minutes": utc.minute,
                "seconds": utc.second,
                "milliseconds": utc.microsecond // 1000,
            }
        }


class ChoiceField(Field):
    """Single-select: RadioButtons for up to five choices, else a Dropdown; options show titles, send values.

    An optional field gets a leading "(no answer)" option, so an answer can be taken back.
    """

    MAX_RADIO: ClassVar[int] = 5
    NO_ANSWER: ClassVar[str] = "(no answer)"

    def __init__(self, spec: FieldSpec, kit: Kit) -> None:
        self.control_cls = w.RadioButtons if len(spec.choices) <= self.MAX_RADIO else w.Dropdown
        super().__init__(spec, kit)

    def _options(self) -> list[tuple[str, Any]]:
        options: list[tuple[str, Any]] = [(c.title, c.value) for c in self.spec.choices]
        return options if self.spec.required else [(self.NO_ANSWER, None), *options]

    def _traits(self) -> dict[str, Any]:
        values = [v for _, v in self._options()]
        default = None if self.spec.default is MISSING else self.spec.default
        index = values.index(default) if default in values else None
        return {"options": self._options(), "index": index}

    def state_for(self, value: Any) -> dict[str, Any]:
        values = [v for _, v in self._options()]
        if value is None and None not in values:
            return {"index": None}
        if value not in values:
            raise ValueError(f"field {self.spec.name!r} has no such choice")
        return {"index": values.index(value)}


class MultiField(Field):
    """Multi-select: a SelectMultiple showing titles and sending the `const` values (value: a tuple)."""

    control_cls = w.SelectMultiple

    def _traits(self) -> dict[str, Any]:
        options = [(c.title, c.value) for c in self.spec.choices]
        values = [v for _, v in options]
        default = () if self.spec.default is MISSING else tuple(self.spec.default)
        return {
            "options": options,
            "index": tuple(values.index(v) for v in default if v in values),
            "rows": min(max(len(options), 2), 6),
        }

    def _hint(self) -> str:
        return "Ctrl/⌘-click to choose several."

    def state_for(self, value: Any) -> dict[str, Any]:
        if isinstance(value, str) or not isinstance(value, Iterable):
            raise TypeError(f"field {self.spec.name!r} takes a list of choices")
        values = [c.value for c in self.spec.choices]
        chosen = list(value)
        if any(v not in values for v in chosen):
            raise ValueError(f"field {self.spec.name!r} has no such choice")
        return {"index": [values.index(v) for v in chosen]}


_BY_KIND: dict[str, type[Field]] = {
    "text": TextField,
    "email": TextField,
    "uri": TextField,
    "number": NumberField,
    "integer": NumberField,
    "boolean": BooleanField,
    "date": DateField,
    "date-time": DateTimeField,
    "choice": ChoiceField,
    "multi": MultiField,
}


def make_field(spec: FieldSpec, kit: Kit) -> Field:
    """The field adapter for a FieldSpec (unknown kinds are shown as text)."""
    return _BY_KIND.get(spec.kind, TextField)(spec, kit)


def display_title(spec: FieldSpec) -> str:
    """The title a control shows: the field's title, and " *" when it is required."""
    return spec.title + (" *" if spec.required else "")


def title_width(specs: Sequence[FieldSpec]) -> str:
    """One title-column width for a whole form (CSS em), so every control starts at the same place.

    Estimated from the longest title a control shows in that column (checkboxes show theirs beside the box):
    about 0.6 em a character, 1 em for wide (East Asian) ones; clamped to `TITLE_EM`, a longer title wraps.
    """
    longest = 0.0
    for spec in specs:
        if spec.kind == "boolean":
            continue
        text = display_title(spec)
        longest = max(longest, sum(1.0 if _is_wide(c) else 0.6 for c in text))
    low, high = TITLE_EM
    em = min(max(longest + 0.5, low), high)  # + 0.5: room for rounding, and never a tight fit
    return f"{em:.1f}em"


def _is_wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F")


# -- helpers -------------------------------------------------------------------------------------------------
def _number_text(number: Any) -> str:
    if isinstance(number, float) and number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return str(number)


def _range_text(low: float | None, high: float | None, unit: str) -> str:
    lo = None if low is None else _number_text(low)
    hi = None if high is None else _number_text(high)
    unit = f" {unit}" if unit else ""
    if lo is not None and hi is not None:
        return f"{lo}–{hi}{unit}"
    if lo is not None:
        return f"at least {lo}{unit}"
    if hi is not None:
        return f"at most {hi}{unit}"
    return ""


def _parse_date(text: Any) -> dt.date | None:
    if isinstance(text, dt.date) and not isinstance(text, dt.datetime):
        return text
    if not isinstance(text, str):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def _parse_datetime(text: Any) -> dt.datetime | None:
    if isinstance(text, dt.datetime):
        parsed = text
    elif isinstance(text, str):
        try:  # Python 3.10 does not read a trailing "Z"
            parsed = dt.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith(("Z", "z")) else text)
        except ValueError:
            return None
    else:
        return None
    # A date-time without an offset is not valid JSON Schema; read it as UTC rather than drop the default.
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.timezone.utc)
