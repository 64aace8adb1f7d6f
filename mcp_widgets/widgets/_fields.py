"""One stock control per field kind (`make_field`), on the `Field` base (`_field`) and a form's kit (`_kit`).

Fields are plain Python adapters around stock ipywidgets (no front-end code of our own): each owns a control
(whose `description` is the field's title, with " *" when it is required; a multi-select of a few choices is
a row of Checkboxes, in `_choice_fields`), a Label for its description and hint, and one for its error (in an
elicitation form, each made only once it has something to say: every model costs a comm message). Values
follow the conventions of `mcp_widgets.core.validation`: str for text and numbers (so an optional number can
stay empty and bad input is reported, not clamped), `date` / aware `datetime` or None, bool, a choice value
or None, and a tuple of values for multi-select.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections.abc import Sequence
from typing import Any, ClassVar

import ipywidgets as w

from ..core.spec import MISSING, FieldSpec
from ._choice_fields import CheckboxesField, ChoiceField, MultiField
from ._field import Field, Validator, display_title, fill_fields
from ._kit import (
    ERROR_CLASS,
    FIRST_CLASS,
    FORM_CLASS,
    LAST_CLASS,
    TITLE_EM,
    TITLE_GAP,
    WRAP_CLASS,
    Kit,
    known_keys,
    shared_models,
)

__all__ = [  # the kit's and the base's names too: the rest of the room takes fields from here
    "ERROR_CLASS",
    "FIRST_CLASS",
    "FORM_CLASS",
    "LAST_CLASS",
    "TITLE_EM",
    "TITLE_GAP",
    "WRAP_CLASS",
    "Field",
    "Kit",
    "Validator",
    "display_title",
    "fill_fields",
    "is_secret",
    "known_keys",
    "make_field",
    "number_text",
    "parse_date",
    "parse_datetime",
    "range_text",
    "shared_models",
    "title_width",
]


class TextField(Field):
    """text, email and uri: a Text box with a hint of what is expected."""

    PLACEHOLDER: ClassVar[dict[str, str]] = {"email": "name@example.com", "uri": "https://…"}

    def _traits(self) -> dict[str, Any]:
        s = self.spec
        placeholder = self.PLACEHOLDER.get(s.kind, "")
        if not placeholder and (s.min_length is not None or s.max_length is not None):
            placeholder = range_text(s.min_length, s.max_length, "characters")
        return {**super()._traits(), "placeholder": placeholder}  # continuous_update: True by default


class NumberField(Field):
    """number and integer: a Text box, so empty stays empty and bad input is reported, not clamped."""

    def _traits(self) -> dict[str, Any]:
        s = self.spec
        noun = "whole number" if s.kind == "integer" else "number"
        if s.exclusive_minimum is None and s.exclusive_maximum is None:
            bounds = range_text(s.minimum, s.maximum, "")
        else:
            low = [f"at least {number_text(s.minimum)}"] if s.minimum is not None else []
            low += (
                [f"more than {number_text(s.exclusive_minimum)}"] if s.exclusive_minimum is not None else []
            )
            high = [f"at most {number_text(s.maximum)}"] if s.maximum is not None else []
            high += (
                [f"less than {number_text(s.exclusive_maximum)}"] if s.exclusive_maximum is not None else []
            )
            bounds = ", ".join(low + high)
        traits = {"placeholder": f"{noun}, {bounds}" if bounds else noun}  # continuous_update: True already
        if s.default is not MISSING:
            traits["value"] = number_text(s.default)
        return traits

    def state_for(self, value: Any) -> dict[str, Any]:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = number_text(value)
        return super().state_for(value)


class BooleanField(Field):
    """boolean: a Checkbox, indented by the title column (its title is beside the box) so it lines up."""

    control_cls = w.Checkbox

    def _traits(self) -> dict[str, Any]:
        # Unchecked and indented by default.
        return {"value": True} if self.spec.default is not MISSING and bool(self.spec.default) else {}

    def state_for(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, bool):
            raise TypeError(f"field {self.spec.name!r} takes a bool")
        return {"value": value}


class DateField(Field):
    """date: a DatePicker (value: datetime.date or None)."""

    control_cls = w.DatePicker

    def _traits(self) -> dict[str, Any]:
        value = parse_date(self.spec.default)
        return {} if value is None else {"value": value}  # None: the class default

    def state_for(self, value: Any) -> dict[str, Any]:
        if isinstance(value, str):
            value = parse_date(value)
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
    """date-time: a DatetimePicker (value: aware datetime or None).

    The person picks in their browser's time zone; ipywidgets hands the kernel that moment in the kernel's
    time zone, so the server gets the right instant with the kernel's offset (with a remote kernel, not the
    person's own offset). An untouched default is sent as the server's own string.
    """

    control_cls = getattr(w, "DatetimePicker", w.Text)  # ipywidgets 7 has none: see DateTimeTextField

    def _traits(self) -> dict[str, Any]:
        value = parse_datetime(self.spec.default)
        return {} if value is None else {"value": value}  # None: the class default

    def state_for(self, value: Any) -> dict[str, Any]:
        value = datetime_arg(self.spec.name, value)
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


class DateTimeTextField(TextField):
    """date-time where ipywidgets has no date-time picker (ipywidgets 7, Google Colab's): a Text box for an
    RFC 3339 date-time, checked as the picker's value is (`validate_field` reads it: an offset is needed).
    """

    _PLACEHOLDER: ClassVar[dict[str, str]] = {"date-time": "2024-01-05T10:00:00Z"}

    def _traits(self) -> dict[str, Any]:
        value = parse_datetime(self.spec.default)
        return {
            "placeholder": self._PLACEHOLDER["date-time"],
            **({} if value is None else {"value": _rfc3339(value)}),
        }

    def state_for(self, value: Any) -> dict[str, Any]:
        if isinstance(value, dt.datetime):
            # A naive time is read as the kernel's local time, as DateTimeField reads it.
            value = _rfc3339(value if value.tzinfo else value.astimezone())
        elif value is None:
            value = ""
        if not isinstance(value, str):
            raise TypeError(f"field {self.spec.name!r} takes a datetime, an ISO date-time string or None")
        return {"value": value}


def _rfc3339(value: dt.datetime) -> str:
    text = value.isoformat()
    return text[:-6] + "Z" if text.endswith("+00:00") else text


_BY_KIND: dict[str, type[Field]] = {
    "text": TextField,
    "email": TextField,
    "uri": TextField,
    "number": NumberField,
    "integer": NumberField,
    "boolean": BooleanField,
    "date": DateField,
    "date-time": DateTimeField if hasattr(w, "DatetimePicker") else DateTimeTextField,
    "choice": ChoiceField,
    "multi": MultiField,
}


def make_field(
    spec: FieldSpec,
    kit: Kit,
    *,
    classes: tuple[str, ...] = (),
    validate: Validator | None = None,
    lazy_note: bool = False,
) -> Field:
    """The field adapter for a FieldSpec (unknown kinds are shown as text).

    `classes` go on its control; with `validate`, the note shows the first check's result from the start;
    with `lazy_note`, the note is made only once it has something to show (see `Field`).
    """
    cls = _BY_KIND.get(spec.kind, TextField)
    if cls is MultiField and len(spec.choices) <= CheckboxesField.MAX_BOXES:
        cls = CheckboxesField
    return cls(spec, kit, classes=classes, validate=validate, lazy_note=lazy_note)


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
def number_text(number: Any) -> str:
    if isinstance(number, float) and number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return str(number)


def range_text(low: float | None, high: float | None, unit: str) -> str:
    lo = None if low is None else number_text(low)
    hi = None if high is None else number_text(high)
    unit = f" {unit}" if unit else ""
    if lo is not None and hi is not None:
        return f"{lo}–{hi}{unit}"
    if lo is not None:
        return f"at least {lo}{unit}"
    if hi is not None:
        return f"at most {hi}{unit}"
    return ""


def parse_date(text: Any) -> dt.date | None:
    if isinstance(text, dt.date) and not isinstance(text, dt.datetime):
        return text
    if not isinstance(text, str):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def datetime_arg(name: str, value: Any) -> dt.datetime | None:
    """A date-time given from Python for field `name` (a datetime, an ISO string or None), checked."""
    if isinstance(value, str):
        value = parse_datetime(value)
        if value is None:
            raise ValueError(f"field {name!r} takes an ISO date-time")
    if not (value is None or isinstance(value, dt.datetime)):
        raise TypeError(f"field {name!r} takes a datetime, an ISO date-time string or None")
    return value


def parse_datetime(text: Any) -> dt.datetime | None:
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


# -- tool forms (mcp_widgets.core.tools.schema): fields elicitation never has -------------------------------
class JsonField(Field):
    """The "json" and "lines" kinds (tool forms only): a Textarea of JSON text, or of strings one per line.

    Its value is the text as typed; `core.tool_args.check_arguments` parses it. `hint` says why the argument
    is edited as text ("nested object: edit as JSON") and shows in the note line.
    """

    control_cls = w.Textarea

    def __init__(self, spec: FieldSpec, kit: Kit, *, hint: str = "", placeholder: str = "") -> None:
        self._hint_text = hint
        self._placeholder = placeholder
        super().__init__(spec, kit)

    def _traits(self) -> dict[str, Any]:
        value = self.spec.default if isinstance(self.spec.default, str) else ""
        rows = min(max(value.count("\n") + 1, 2), 8)
        return {"value": value, "placeholder": self._placeholder, "rows": rows, "continuous_update": True}

    def _hint(self) -> str:
        return self._hint_text


class SecretField(TextField):
    """A string the tool marks secret (`"format": "password"` or `writeOnly`, pydantic's SecretStr): masked.

    Tool forms only. The value is still in the control's state (and a notebook saved with widget state)
    until the form is closed.
    """

    control_cls = w.Password


def is_secret(schema: Any) -> bool:
    """pydantic's SecretStr: `"format": "password"` and `"writeOnly": true` (a `SecretField`)."""
    return schema.get("format") == "password" or schema.get("writeOnly") is True
