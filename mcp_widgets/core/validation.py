"""Content validation and conversion: what a person entered -> per-field messages and content (pure).

Imports only the standard library, jsonschema and regex.

Widget-side values accepted per kind (what `initial_value` returns, and what the form's controls hold):
text/email/uri: str; number/integer: str (text boxes), int or float; "" / None / whitespace = empty;
boolean: bool (None = False); date: "YYYY-MM-DD" or datetime.date; date-time: an RFC 3339 string with an
offset or an aware datetime.datetime; choice: str (None / "" = empty); multi: list or tuple of str.

Messages are for the person filling the form and never contain the value itself.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .formats import date_time, is_email, is_uri, parse_date, parse_date_time
from .spec import MISSING, STRING_KINDS, FieldSpec, FormSpec, Problem, compile_pattern, initial_value
from .text import number_text, plural


def _import_jsonschema() -> ModuleType:
    # jsonschema imports `rfc3987_syntax` (when installed, as JupyterLab installs it) only to check the
    # "iri" formats, and building its grammar costs ~2.5 s of CPU on the first form of a kernel. We check
    # formats with rules of our own, so when jsonschema is not loaded yet it is loaded without it; the
    # only effect is that jsonschema's own FormatChecker in this process does not know "iri".
    import sys

    if "jsonschema" in sys.modules or "rfc3987_syntax" in sys.modules:
        import jsonschema
    else:
        sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]
        try:
            import jsonschema
        finally:
            del sys.modules["rfc3987_syntax"]
    return jsonschema


if TYPE_CHECKING:
    import jsonschema as jsonschema  # re-exported: tool_validator uses the one loaded here
    from jsonschema.protocols import Validator
else:
    jsonschema = _import_jsonschema()

__all__ = [
    "PATTERN_TIMEOUT",
    "ValidationResult",
    "build_content",
    "check_field",
    "is_email",
    "is_uri",
    "parse_date",
    "parse_date_time",
    "validate_content",
    "validate_field",
]

PATTERN_TIMEOUT = 0.05
"""Seconds a server pattern may run on one value before it is given up for good (never freeze the kernel)."""

REQUIRED = "required"


@dataclass(frozen=True)
class ValidationResult:
    """Per-field messages for a person, and the content to send when there are none."""

    errors: Mapping[str, str] = field(default_factory=dict)
    content: dict[str, Any] | None = field(default=None, repr=False)
    problems: tuple[Problem, ...] = ()
    """Schema problems only found while validating (e.g. a pattern that timed out)."""

    @property
    def ok(self) -> bool:
        return not self.errors


class _Empty:
    __slots__ = ()

    def __repr__(self) -> str:
        return "EMPTY"


_EMPTY: Any = _Empty()
"""The person left the field empty: an optional one is omitted from the content."""


# --------------------------------------------------------------------------------------------------
# Numbers

_INT = re.compile(r"[+-]?[0-9]+")
# Unambiguous on purpose: `[0-9]+\.?[0-9]*` backtracks quadratically on a long run of digits.
_NUM = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_MAX_NUMBER_TEXT = 400
"""Longer number text is refused outright (no float or int needs more to be written)."""


def _parse_number(value: object) -> int | float | None:
    """A finite number from a text box (or an int/float); None when it is not one."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if len(text) > _MAX_NUMBER_TEXT:
        return None
    try:
        if _INT.fullmatch(text):
            return int(text)  # integral text without '.'/'e' stays an int
        if _NUM.fullmatch(text):
            number = float(text)
            return number if math.isfinite(number) else None
    except (ValueError, OverflowError):  # e.g. more digits than int() accepts
        return None
    return None


# --------------------------------------------------------------------------------------------------
# Conversion: widget value -> content value (or _EMPTY), or a message


def _is_blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _convert(spec: FieldSpec, value: Any) -> tuple[Any, str | None]:
    kind = spec.kind
    if kind == "boolean":
        # A checkbox has no empty state: None (never set) means unchecked.
        if value is None:
            return False, None
        return (value, None) if isinstance(value, bool) else (_EMPTY, "must be true or false")
    if kind == "multi":
        if value is None:
            return [], None
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
            return _EMPTY, "not one of the choices"
        return list(dict.fromkeys(value)), None
    if kind == "text":
        if value is None or value == "":
            return _EMPTY, None
        return (value, None) if isinstance(value, str) else (_EMPTY, "must be text")
    if kind in ("email", "uri"):
        # Surrounding whitespace is never part of an address (and often pasted along): trimmed, not refused.
        if _is_blank(value):
            return _EMPTY, None
        return (value.strip(), None) if isinstance(value, str) else (_EMPTY, "must be text")
    if kind == "choice":
        if value is None or value == "":
            return _EMPTY, None
        return (value, None) if isinstance(value, str) else (_EMPTY, "not one of the choices")
    if _is_blank(value):
        return _EMPTY, None
    if kind in ("number", "integer"):
        number = _parse_number(value)
        if kind == "integer":
            if number is None or (isinstance(number, float) and not number.is_integer()):
                return _EMPTY, "must be a whole number"
            return int(number), None
        return (number, None) if number is not None else (_EMPTY, "must be a number")
    if kind == "date":
        date = parse_date(value)
        return (date.isoformat(), None) if date is not None else (_EMPTY, "not a valid date (YYYY-MM-DD)")
    # date-time
    parsed = date_time(value)
    if parsed == "naive":
        return _EMPTY, "needs a time zone (e.g. 2024-01-05T10:00:00Z or +02:00)"
    if not isinstance(parsed, dt.datetime):
        return _EMPTY, "not a valid date and time (e.g. 2024-01-05T10:00:00Z)"
    return (value.strip() if isinstance(value, str) else parsed.isoformat()), None


# --------------------------------------------------------------------------------------------------
# Structure (jsonschema) and patterns


@functools.lru_cache(maxsize=1024)
def _validator(
    kind: str,
    min_length: int | None,
    max_length: int | None,
    minimum: float | None,
    maximum: float | None,
    exclusive_minimum: float | None,
    exclusive_maximum: float | None,
    min_items: int | None,
    max_items: int | None,
    choices: tuple[str, ...],
) -> Validator:
    """A Draft 2020-12 validator for what we honour of a field, compiled once per distinct field."""
    schema: dict[str, Any]
    if kind in STRING_KINDS:
        schema = {"type": "string", "minLength": min_length, "maxLength": max_length}
    elif kind in ("number", "integer"):
        schema = {
            "type": kind,
            "minimum": minimum,
            "maximum": maximum,
            "exclusiveMinimum": exclusive_minimum,
            "exclusiveMaximum": exclusive_maximum,
        }
    elif kind == "boolean":
        schema = {"type": "boolean"}
    elif kind == "choice":
        schema = {"type": "string", "enum": list(choices)}
    else:
        schema = {
            "type": "array",
            "items": {"type": "string", "enum": list(choices)},
            "minItems": min_items,
            "maxItems": max_items,
        }
    schema = {k: v for k, v in schema.items() if v is not None}
    return jsonschema.Draft202012Validator(schema)


def _validator_for(spec: FieldSpec) -> Validator:
    return _validator(
        spec.kind,
        spec.min_length,
        spec.max_length,
        spec.minimum,
        spec.maximum,
        spec.exclusive_minimum,
        spec.exclusive_maximum,
        spec.min_items,
        spec.max_items,
        tuple(c.value for c in spec.choices),
    )


_MESSAGES: dict[str, Callable[[Any, str], str]] = {
    "enum": lambda n, kind: "not one of the choices",
    "minLength": lambda n, kind: f"must be at least {plural(n, 'character')}",
    "maxLength": lambda n, kind: f"must be at most {plural(n, 'character')}",
    "minimum": lambda n, kind: f"must be at least {number_text(n)}",
    "maximum": lambda n, kind: f"must be at most {number_text(n)}",
    "exclusiveMinimum": lambda n, kind: f"must be more than {number_text(n)}",
    "exclusiveMaximum": lambda n, kind: f"must be less than {number_text(n)}",
    "minItems": lambda n, kind: f"choose at least {number_text(n)}",
    "maxItems": lambda n, kind: f"choose at most {number_text(n)}",
    "type": lambda n, kind: "must be a whole number" if kind == "integer" else "not a valid value",
}
_ORDER = list(_MESSAGES)


def _structure_message(spec: FieldSpec, value: Any) -> str | None:
    errors = [e for e in _validator_for(spec).iter_errors(value) if e.validator in _MESSAGES]
    if not errors:
        return None
    first = min(errors, key=lambda e: _ORDER.index(str(e.validator)))
    # Built from the keyword and the schema's number only: jsonschema's own message quotes the value.
    return _MESSAGES[str(first.validator)](first.validator_value, spec.kind)


_TIMED_OUT: set[str] = set()
"""Patterns that once ran too long: never run again in this process (bounded by compile_pattern's cache)."""


def pattern_ok(pattern: str, text: str) -> bool | None:
    """Whether the server pattern is found in text (JSON Schema patterns are not anchored); None = gave up."""
    if pattern in _TIMED_OUT:
        return None
    compiled = compile_pattern(pattern)
    if isinstance(compiled, str):
        return True  # unusable patterns were already reported by parse_schema and are not applied
    try:
        return compiled.search(text, timeout=PATTERN_TIMEOUT) is not None
    except TimeoutError:
        if len(_TIMED_OUT) > 1024:
            _TIMED_OUT.clear()
        _TIMED_OUT.add(pattern)
        return None


def _shown_pattern(pattern: str) -> str:
    return pattern if len(pattern) <= 60 else pattern[:59] + "…"


def _omit_empty_multi(spec: FieldSpec) -> bool:
    """Whether an empty multi-select is left out of the content rather than sent as [].

    Required: [] is sent. Optional with a schema default: [] tells the server the person cleared it, unless
    minItems makes [] invalid (then leaving it out is the only valid way to say "nothing"). Otherwise omitted.
    """
    if spec.required:
        return False
    return spec.default is MISSING or (spec.min_items or 0) > 0


def check_field(spec: FieldSpec, value: Any) -> tuple[str | None, bool]:
    """The message for one value (or None), and whether the field's pattern had to be given up (timed out)."""
    converted, message = _convert(spec, value)
    if message is not None:
        return message, False
    if converted is _EMPTY:
        return (REQUIRED if spec.required else None), False
    if spec.kind == "multi" and not converted and _omit_empty_multi(spec):
        return None, False  # omitted from the content, so minItems does not apply
    if spec.kind == "email" and not is_email(converted):
        return "not a valid email address", False
    if spec.kind == "uri" and not is_uri(converted):
        return "not a valid URI (e.g. https://example.com)", False
    message = _structure_message(spec, converted)
    if message is not None:
        return message, False
    if spec.pattern is not None and spec.kind in STRING_KINDS:
        found = pattern_ok(spec.pattern, converted)
        if found is None:
            return None, True  # a pattern that cannot finish does not block the person
        if not found:
            return f"must match the pattern {_shown_pattern(spec.pattern)}", False
    return None, False


def validate_field(spec: FieldSpec, value: Any) -> str | None:
    """The message for one field's current value, or None when it is fine."""
    return check_field(spec, value)[0]


def _value(spec: FieldSpec, values: Mapping[str, Any]) -> Any:
    # A field the caller does not mention holds what the form pre-fills: its default (SEP-1034).
    return values[spec.name] if spec.name in values else initial_value(spec)


def build_content(spec: FormSpec, values: Mapping[str, Any]) -> dict[str, Any]:
    """The `content` of an accept, converted to the types the spec requires (assumes valid values).

    Fields missing from `values` take their default. Empty optional fields are omitted (never null or "");
    booleans are always sent (a checkbox has no empty state, so unchecked is an answer: false); an empty
    multi is sent as [] only when required or when the schema gave a default (see `_omit_empty_multi`).
    Keys of `values` that are not fields are ignored.

    Raises:
        ValueError: a value cannot be converted (validate first); the message names the field, not the value.
    """
    content: dict[str, Any] = {}
    for f in spec.fields:
        converted, message = _convert(f, _value(f, values))
        if message is not None:
            raise ValueError(f"field {f.name!r}: {message}")
        if converted is _EMPTY:
            continue
        if f.kind == "multi" and not converted and _omit_empty_multi(f):
            continue
        content[f.name] = converted
    return content


def validate_content(spec: FormSpec, values: Mapping[str, Any]) -> ValidationResult:
    """Validate every field and, when all are fine, build the content."""
    errors: dict[str, str] = {}
    problems: list[Problem] = []
    for f in spec.fields:
        message, timed_out = check_field(f, _value(f, values))
        if message is not None:
            errors[f.name] = message
        if timed_out:
            problems.append(
                Problem(
                    "warning",
                    "pattern-timeout",
                    '"pattern" took too long to run: it is no longer applied',
                    f.name,
                )
            )
    content = None if errors else build_content(spec, values)
    return ValidationResult(errors=errors, content=content, problems=tuple(problems))
