"""The fields of a one-model form as the page renders them (`assets/fields.js`), and their values both ways.

A field is sent to the page once, as a JSON spec holding only what the server sent (its title, description,
options, bounds and default): `field_spec`. What a person types travels as custom messages, never as synced
state: the page sends each edit in its JSON form and `from_page` turns it into the convention of
`core.validation` (str for text and numbers, bool, `date` / aware `datetime` or None, a choice's value or
None, a tuple of values for several); `to_page` is the way back (a value filled from Python, or the current
values for a view that renders later), and `from_python` checks what `form.fill` is given as the stock
controls' `state_for` did (TypeError, ValueError).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Any

from ..core.spec import MISSING, FieldSpec
from ..core.text import shown
from ._choice_fields import CheckboxesField, ChoiceField, pick_text
from ._field import display_title, joined_note
from ._fields import TextField, datetime_arg, number_text, parse_date, parse_datetime, range_text

__all__ = ["field_spec", "first_value", "from_page", "from_python", "note_text", "shown_error", "to_page"]

_PATTERN_ERROR = "must match the pattern "


def _widget(spec: FieldSpec) -> str:
    """How the page shows a field: the control it renders."""
    kind = spec.kind
    if kind in ("number", "integer"):
        return "number"
    if kind == "boolean":
        return "checkbox"
    if kind == "date":
        return "date"
    if kind == "date-time":
        return "datetime"
    if kind == "choice":
        return "radio" if len(spec.choices) <= ChoiceField.MAX_RADIO else "select"
    if kind == "multi":
        return "checks" if len(spec.choices) <= CheckboxesField.MAX_BOXES else "list"
    return "text"


def _options(spec: FieldSpec) -> list[Any]:
    """The values a choice field's options send, in the page's order ("(no answer)" first when optional)."""
    values = [c.value for c in spec.choices]
    return values if spec.kind == "multi" or spec.required else [None, *values]


def _placeholder(spec: FieldSpec) -> str:
    kind = spec.kind
    if kind in ("number", "integer"):
        noun = "whole number" if kind == "integer" else "number"
        if spec.exclusive_minimum is None and spec.exclusive_maximum is None:
            bounds = range_text(spec.minimum, spec.maximum, "")
        else:
            parts = [f"at least {number_text(spec.minimum)}"] if spec.minimum is not None else []
            if spec.exclusive_minimum is not None:
                parts.append(f"more than {number_text(spec.exclusive_minimum)}")
            if spec.maximum is not None:
                parts.append(f"at most {number_text(spec.maximum)}")
            if spec.exclusive_maximum is not None:
                parts.append(f"less than {number_text(spec.exclusive_maximum)}")
            bounds = ", ".join(parts)
        return f"{noun}, {bounds}" if bounds else noun
    if _widget(spec) != "text":
        return ""
    placeholder = TextField.PLACEHOLDER.get(kind, "")
    if not placeholder and (spec.min_length is not None or spec.max_length is not None):
        placeholder = range_text(spec.min_length, spec.max_length, "characters")
    return placeholder


def note_text(spec: FieldSpec) -> str:
    """The line under a field: its description and what to pick (the same words the stock fields showed)."""
    widget = _widget(spec)
    hint = ""
    if widget == "checks":
        hint = pick_text(spec)
    elif widget == "list":
        hint = f"{pick_text(spec)} Ctrl/⌘-click to choose several."
    return joined_note(spec.description, hint)


def field_spec(spec: FieldSpec) -> dict[str, Any]:
    """What the page needs to render a field (server text made `shown`: control characters visible)."""
    out: dict[str, Any] = {
        "name": spec.name,
        "widget": _widget(spec),
        "title": shown(display_title(spec)),
        "tooltip": shown(spec.description or spec.title),
        "note": shown(note_text(spec)),
    }
    placeholder = _placeholder(spec)
    if placeholder:
        out["placeholder"] = placeholder
    if spec.choices:
        titles = [shown(c.title) for c in spec.choices]
        out["options"] = titles if len(_options(spec)) == len(titles) else [ChoiceField.NO_ANSWER, *titles]
    if spec.kind == "multi":
        out["rows"] = min(max(len(spec.choices), 2), 8)
    return out


def first_value(spec: FieldSpec) -> Any:
    """A field's value before anyone touches it: its default, in the validation's convention."""
    default = spec.default
    kind = spec.kind
    if kind == "boolean":
        return default is not MISSING and bool(default)
    if kind == "date":
        return parse_date(default)
    if kind == "date-time":
        return parse_datetime(default)
    if kind == "choice":
        return default if default is not MISSING and default in _options(spec) else None
    if kind == "multi":
        chosen = () if default is MISSING else tuple(default)
        values = _options(spec)
        return tuple(v for v in chosen if v in values)
    if default is MISSING:
        return ""
    return number_text(default) if kind in ("number", "integer") else str(default)


def to_page(spec: FieldSpec, value: Any) -> Any:
    """A value as the page shows it: text, a bool, an ISO date, an ISO instant (UTC), an option's index
    (None: none chosen) or a list of them."""
    kind = spec.kind
    if kind == "date":
        return value.isoformat() if isinstance(value, dt.date) else ""
    if kind == "date-time":
        return value.astimezone(dt.timezone.utc).isoformat() if isinstance(value, dt.datetime) else ""
    if kind == "choice":
        values = _options(spec)
        return values.index(value) if value in values else None
    if kind == "multi":
        values = _options(spec)
        return [values.index(v) for v in value if v in values]
    return value


def from_page(spec: FieldSpec, raw: Any) -> Any:
    """What the page sent for a field, in the validation's convention; ValueError for what no control
    sends (a message from something that is not our page)."""
    kind = spec.kind
    if kind == "boolean":
        if not isinstance(raw, bool):
            raise ValueError("a checkbox sends true or false")
        return raw
    if kind in ("choice", "multi"):
        values = _options(spec)
        picked = raw if kind == "multi" else [raw]
        if not isinstance(picked, list) or not all(
            i is None or (isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(values))
            for i in picked
        ):
            raise ValueError("a choice sends option indices")
        if kind == "choice":
            return None if raw is None else values[raw]
        return tuple(values[i] for i in sorted(set(picked)) if i is not None)
    if not isinstance(raw, str):
        raise ValueError("a text box sends text")
    if kind == "date":
        return parse_date(raw) if raw else None
    if kind == "date-time":
        if not raw:
            return None
        parsed = parse_datetime(raw)
        if parsed is None:
            raise ValueError("a date-time box sends an ISO instant")
        # The browser's instant, in the kernel's time zone (as the stock picker handed it over).
        return parsed.astimezone()
    return raw


def from_python(spec: FieldSpec, value: Any) -> Any:
    """A value `fill` was given, checked as a person could enter it; TypeError or ValueError otherwise."""
    kind, name = spec.kind, spec.name
    if kind == "boolean":
        if not isinstance(value, bool):
            raise TypeError(f"field {name!r} takes a bool")
        return value
    if kind == "date":
        if isinstance(value, str):
            value = parse_date(value)
            if value is None:
                raise ValueError(f"field {name!r} takes an ISO date (YYYY-MM-DD)")
        if isinstance(value, dt.datetime) or not (value is None or isinstance(value, dt.date)):
            raise TypeError(f"field {name!r} takes a datetime.date, an ISO date string or None")
        return value
    if kind == "date-time":
        value = datetime_arg(name, value)
        if value is None:
            return None
        # A naive time is read as the kernel's local time, as a browser reads what a person types; whole
        # milliseconds, as a browser's picker holds them.
        moment = value if value.tzinfo else value.astimezone()
        moment = moment.replace(microsecond=moment.microsecond // 1000 * 1000)
        return moment.astimezone()
    if kind == "choice":
        values = _options(spec)
        if value is not None and value not in values:
            raise ValueError(f"field {name!r} has no such choice")
        return value
    if kind == "multi":
        if isinstance(value, str) or not isinstance(value, Iterable):
            raise TypeError(f"field {name!r} takes a list of choices")
        chosen = list(value)
        values = _options(spec)
        if any(v not in values for v in chosen):
            raise ValueError(f"field {name!r} has no such choice")
        if _widget(spec) == "list":  # a list keeps the order given (as the stock list did); boxes their own
            return tuple(dict.fromkeys(chosen))
        return tuple(v for v in values if v in chosen)
    if kind in ("number", "integer") and isinstance(value, (int, float)) and not isinstance(value, bool):
        return number_text(value)
    if not isinstance(value, str):
        raise TypeError(f"field {name!r} takes a str")
    return value


def _is_empty(value: Any) -> bool:
    return value is None or value == "" or value == ()


def shown_error(spec: FieldSpec, error: str | None, value: Any, touched: bool) -> str:
    """A field's verdict line: empty until the field is touched or holds something."""
    if not error or not (touched or not _is_empty(value)):
        return ""
    if error.startswith(_PATTERN_ERROR) and (spec.description or "").strip():
        # Not a raw regex where a description is there to read (it need not say the form, so this does not).
        error = "does not have the form this field asks for"
    return shown(f"⚠ Error: {error}")
