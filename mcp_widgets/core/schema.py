"""The elicitation schema subset -> field descriptors, and every rule it can break (pure).

Imports only the standard library (and `regex` for server-sent patterns): no widgets, kernel or SDK.

Rules, by id (severity). Errors refuse the request with -32602, warnings are rendered anyway:

    schema-not-object      (error)    the schema is not a JSON object
    top-level-type         (error)    top-level `type` is not "object"
    top-level-combinator   (error)    a top-level oneOf/anyOf/allOf/not that is present and not false/empty
    properties-not-object  (error)    `properties` is not an object
    property-not-object    (error)    a property's schema is not an object
    property-name          (error)    a property name that is not a string (only from Python callers)
    property-type          (error)    a property type other than string/number/integer/boolean/multi-select
    properties-missing     (warning)  no `properties`: a pure confirmation
    property-type-missing  (warning)  no `type`: rendered as text (as a choice when it has enum/oneOf)
    property-type-list     (warning)  a list of types: only the first entry counts
    format-unknown         (warning)  a string format we do not know: rendered as text
    constraint-invalid     (warning)  a constraint of the wrong type or range: ignored
    constraint-contradictory (warning) constraints no value can meet (min > max, ...): both ignored
    default-invalid        (warning)  a default of the wrong type (or not among the choices): ignored
    default-constraint     (warning)  a default that breaks the field's own constraints: kept
    required-invalid       (warning)  `required` is not a list of strings: bad entries ignored
    required-unknown       (warning)  `required` names a property that does not exist
    enum-names-mismatch    (warning)  `enumNames` is not a list of strings as long as `enum`: ignored
    choice-invalid         (warning)  an enum member or oneOf/anyOf entry that is not a string: skipped
    choice-duplicate       (warning)  the same choice value twice: later ones skipped
    choices-conflict       (warning)  both `enum` and `oneOf`: `oneOf` wins
    choices-empty          (warning)  a select with no usable options
    choices-ignored        (warning)  enum/oneOf on a number/integer/boolean property: ignored
    items-oneof            (warning)  multi-select options under items.oneOf instead of items.anyOf: accepted
    pattern-invalid        (warning)  a pattern that is not a string, too long, too costly or does not compile
    pattern-timeout        (warning)  a pattern that took too long on a value: no longer applied
    annotation-invalid     (warning)  a title or description that is not a string: ignored

Keywords that do not apply to a field's kind (a pattern on a number, a minimum on a string) are ignored
silently, as JSON Schema itself ignores them.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import regex

from .exceptions import SchemaError

__all__ = [
    "MISSING",
    "Choice",
    "FieldKind",
    "FieldSpec",
    "FormSpec",
    "Problem",
    "check_schema",
    "initial_value",
    "parse_schema",
    "validate_schema",
]

Severity = Literal["error", "warning"]
FieldKind = Literal[
    "text", "email", "uri", "date", "date-time", "number", "integer", "boolean", "choice", "multi"
]

STRING_KINDS = frozenset({"text", "email", "uri", "date", "date-time"})
"""Kinds whose content is a string (length and pattern constraints apply)."""

MAX_PATTERN_LENGTH = 1000
"""Longer server patterns are refused (warning) rather than compiled."""
_MAX_PATTERN_COST = 10_000
# The `regex` package expands counted repeats when compiling: `(a{1000}){1000}` takes seconds and
# `x{4294967294}` exhausts memory. We estimate the expanded size first and refuse costly patterns.


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()
"""Stands for "the schema gives no default" (None can't: it is not a valid default either)."""


@dataclass(frozen=True)
class Problem:
    """One broken rule in a requested schema."""

    severity: Severity
    rule: str
    """A short stable identifier, e.g. "top-level-type", "property-type", "pattern-invalid"."""
    message: str
    """What is wrong, for a server author."""
    property: str | None = None
    """The property it concerns, or None for the schema as a whole."""

    def __str__(self) -> str:
        where = f"property {self.property!r}" if self.property is not None else "schema"
        return f"{self.severity} [{self.rule}] {where}: {self.message}"


@dataclass(frozen=True)
class Choice:
    """One option of a single- or multi-select: the value sent, and the title shown."""

    value: str
    title: str


@dataclass(frozen=True)
class FieldSpec:
    """One property of the requested schema, as the form needs it."""

    name: str
    kind: FieldKind
    title: str
    """The schema's title, else the property name."""
    description: str = ""
    required: bool = False
    default: Any = MISSING
    """Already converted to the field's kind (a str for dates, a list of str for multi), or MISSING."""
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    """A server-sent pattern that compiled; None when absent or unusable (then a warning says so)."""
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Choice, ...] = ()
    min_items: int | None = None
    max_items: int | None = None
    schema: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """The raw property schema as the server sent it."""
    exclusive_minimum: float | None = None
    """A strict lower bound (`exclusiveMinimum`), when the server sent one."""
    exclusive_maximum: float | None = None
    """A strict upper bound (`exclusiveMaximum`), when the server sent one."""

    def __hash__(self) -> int:
        # The generated hash would fail on a multi-select's list default; equal specs share these three.
        return hash((self.name, self.kind, self.title))


@dataclass(frozen=True)
class FormSpec:
    """A parsed requested schema: fields in the server's order, plus every problem found."""

    fields: tuple[FieldSpec, ...]
    problems: tuple[Problem, ...] = ()
    title: str = ""
    description: str = ""
    schema: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def errors(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity == "error")

    @property
    def warnings(self) -> tuple[Problem, ...]:
        return tuple(p for p in self.problems if p.severity == "warning")

    @property
    def ok(self) -> bool:
        return not self.errors

    def field(self, name: str) -> FieldSpec:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)


# --------------------------------------------------------------------------------------------------
# Server patterns


_COUNTED = regex.compile(r"\{\s*(\d*)\s*(?:,\s*(\d*)\s*)?\}")


def _pattern_cost(pattern: str) -> int:
    """A rough upper bound of how far `regex` expands counted repeats when compiling `pattern`."""
    stack: list[int] = [0]  # cost of the sequence being built at each group depth
    last = 0  # cost of the previous atom, which a quantifier multiplies
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i += 2
            last = 1
            stack[-1] += 1
            continue
        if c == "[":
            j = i + 1
            if j < n and pattern[j] == "^":
                j += 1
            if j < n and pattern[j] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
            last = 1
            stack[-1] += 1
            continue
        if c == "(":
            stack.append(0)
            i += 1
            last = 0
            continue
        if c == ")":
            inner = stack.pop() if len(stack) > 1 else 0
            last = max(inner, 1)
            stack[-1] += last
            i += 1
            continue
        if c == "{":
            m = _COUNTED.match(pattern, i)
            if m and (m.group(1) or m.group(2)):
                high = max(int(m.group(1) or 0), int(m.group(2) or 0))
                if high > 1_000_000:
                    return high
                stack[-1] += last * (high - 1)
                last *= high
                i = m.end()
                continue
        last = 1
        stack[-1] += 1
        i += 1
    return sum(stack)


@functools.lru_cache(maxsize=512)
def compile_pattern(pattern: str) -> regex.Pattern[str] | str:
    """Compile a server pattern once; a str return is the reason it is refused (no value ever appears)."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"is longer than {MAX_PATTERN_LENGTH} characters"
    if _pattern_cost(pattern) > _MAX_PATTERN_COST:
        return "repeats too much to compile safely"
    try:
        return regex.compile(pattern)
    except (regex.error, ValueError, TypeError, OverflowError, MemoryError, RecursionError) as exc:
        return f"does not compile ({type(exc).__name__})"


# --------------------------------------------------------------------------------------------------
# Parsing


_TYPES_ALLOWED = (
    "allowed: string, number, integer, boolean, or an array whose items have `enum` or "
    "`anyOf` [{const, title}] (multi-select)"
)
_FORMATS: dict[str, FieldKind] = {"email": "email", "uri": "uri", "date": "date", "date-time": "date-time"}
_COMBINATORS = ("oneOf", "anyOf", "allOf", "not")


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _fmt(value: float) -> str:
    """A number as a person reads it: 100 rather than 100.0."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)


class _Parser:
    """Collects the problems of one schema while building its fields."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def error(self, rule: str, message: str, prop: str | None = None) -> None:
        self.problems.append(Problem("error", rule, message, prop))

    def warn(self, rule: str, message: str, prop: str | None = None) -> None:
        self.problems.append(Problem("warning", rule, message, prop))

    # -- whole schema ------------------------------------------------------------------------------

    def parse(self, schema: object) -> FormSpec:
        if not isinstance(schema, Mapping):
            self.error(
                "schema-not-object", f"the requested schema must be a JSON object, not {_kind(schema)}"
            )
            return FormSpec(fields=(), problems=tuple(self.problems))
        if schema.get("type") != "object":
            got = _shown(schema["type"]) if "type" in schema else "missing"
            self.error("top-level-type", f'the top-level "type" must be "object" (got {got})')
        for key in _COMBINATORS:
            # Present-but-false/empty is harmless (some generators emit `"not": {}` or `"anyOf": []`).
            if key in schema and _truthy(schema[key]):
                self.error(
                    "top-level-combinator", f'a top-level "{key}" is not allowed: the schema must be flat'
                )
        title = self.annotation(schema, "title", None)
        description = self.annotation(schema, "description", None)
        properties = schema.get("properties", MISSING)
        fields: list[FieldSpec] = []
        if properties is MISSING or properties is None:
            self.warn("properties-missing", 'no "properties": the request is a pure confirmation')
            properties = {}
        if not isinstance(properties, Mapping):
            self.error("properties-not-object", f'"properties" must be an object, not {_kind(properties)}')
            properties = {}
        required = self.required(schema.get("required", MISSING), properties)
        for name, prop in properties.items():
            if not isinstance(name, str):
                self.error("property-name", f"property names must be strings, not {_kind(name)}")
                continue
            parsed = self.property(name, prop, name in required)
            if parsed is not None:
                fields.append(parsed)
        return FormSpec(
            fields=tuple(fields),
            problems=tuple(self.problems),
            title=title,
            description=description,
            schema=schema,
        )

    def required(self, required: object, properties: Mapping[Any, Any]) -> set[str]:
        if required is MISSING or required is None:
            return set()
        if not isinstance(required, (list, tuple)):
            self.warn(
                "required-invalid", f'"required" must be a list of property names, not {_kind(required)}'
            )
            return set()
        names: set[str] = set()
        for entry in required:
            if not isinstance(entry, str):
                self.warn(
                    "required-invalid", f'"required" has an entry that is not a string ({_kind(entry)})'
                )
            elif entry not in properties:
                self.warn("required-unknown", '"required" names a property that is not defined', entry)
            else:
                names.add(entry)
        return names

    def annotation(self, schema: Mapping[str, Any], key: str, prop: str | None) -> str:
        value = schema.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            self.warn("annotation-invalid", f'"{key}" must be a string, not {_kind(value)}: ignored', prop)
            return ""
        return value

    # -- one property ------------------------------------------------------------------------------

    def property(self, name: str, prop: object, required: bool) -> FieldSpec | None:
        if not isinstance(prop, Mapping):
            self.error(
                "property-not-object", f"the property schema must be an object, not {_kind(prop)}", name
            )
            return None
        type_ = prop.get("type", MISSING)
        if isinstance(type_, (list, tuple)):
            self.warn("property-type-list", "a list of types: only the first entry counts", name)
            type_ = type_[0] if type_ else MISSING
        title = self.annotation(prop, "title", name) or name
        base: dict[str, Any] = {
            "name": name,
            "title": title,
            "description": self.annotation(prop, "description", name),
            "required": required,
            "schema": prop,
        }
        if type_ is MISSING or type_ is None:
            has_choices = "enum" in prop or "oneOf" in prop
            shown = "a single choice" if has_choices else "text"
            self.warn("property-type-missing", f'no "type": rendered as {shown}', name)
            if has_choices:
                return self.choice(name, prop, base)
            return self.string(name, prop, base)
        if type_ == "string":
            if "enum" in prop or "oneOf" in prop:
                return self.choice(name, prop, base)
            return self.string(name, prop, base)
        if type_ in ("number", "integer"):
            self.no_choices(name, prop, str(type_))
            return self.number(name, prop, base, type_)
        if type_ == "boolean":
            self.no_choices(name, prop, "boolean")
            default = prop.get("default", MISSING)
            if default is not MISSING and not isinstance(default, bool):
                self.warn(
                    "default-invalid", f'"default" must be true or false, not {_kind(default)}: ignored', name
                )
                default = MISSING
            return FieldSpec(kind="boolean", default=default, **base)
        if type_ == "array":
            items = prop.get("items")
            if isinstance(items, Mapping) and any(k in items for k in ("enum", "anyOf", "oneOf")):
                return self.multi(name, prop, items, base)
            self.error(
                "property-type",
                'type "array" is only allowed as a multi-select (items with "enum" or "anyOf"); '
                + _TYPES_ALLOWED,
                name,
            )
            return None
        self.error("property-type", f"type {_shown(type_)} is not allowed; {_TYPES_ALLOWED}", name)
        return None

    def no_choices(self, name: str, prop: Mapping[str, Any], type_: str) -> None:
        # Choices must be strings on the wire (the spec's select shapes are all strings); a number or
        # boolean with `enum` is rendered as its plain input and the enum is not enforced.
        if "enum" in prop or "oneOf" in prop:
            self.warn(
                "choices-ignored", f'"enum"/"oneOf" on a {type_} property is not supported: ignored', name
            )

    # -- strings -----------------------------------------------------------------------------------

    def string(self, name: str, prop: Mapping[str, Any], base: dict[str, Any]) -> FieldSpec:
        kind: FieldKind = "text"
        fmt = prop.get("format", MISSING)
        if fmt is not MISSING and fmt is not None:
            if isinstance(fmt, str) and fmt in _FORMATS:
                kind = _FORMATS[fmt]
            else:
                self.warn("format-unknown", f"format {_shown(fmt)} is not supported: rendered as text", name)
        min_length = self.count(prop, "minLength", name)
        max_length = self.count(prop, "maxLength", name)
        if min_length is not None and max_length is not None and min_length > max_length:
            self.warn(
                "constraint-contradictory", '"minLength" is greater than "maxLength": both ignored', name
            )
            min_length = max_length = None
        pattern = self.pattern(prop, name)
        default = prop.get("default", MISSING)
        if default is not MISSING and not isinstance(default, str):
            self.warn("default-invalid", f'"default" must be a string, not {_kind(default)}: ignored', name)
            default = MISSING
        if default is not MISSING and kind in ("date", "date-time") and not _default_date_ok(kind, default):
            # A date picker cannot hold a malformed date, so this default cannot be pre-filled.
            self.warn("default-invalid", f'"default" is not a valid {kind}: ignored', name)
            default = MISSING
        spec = FieldSpec(
            kind=kind, default=default, min_length=min_length, max_length=max_length, pattern=pattern, **base
        )
        return self.check_default(spec)

    def pattern(self, prop: Mapping[str, Any], name: str) -> str | None:
        pattern = prop.get("pattern", MISSING)
        if pattern is MISSING or pattern is None:
            return None
        if not isinstance(pattern, str):
            self.warn("pattern-invalid", f'"pattern" must be a string, not {_kind(pattern)}: ignored', name)
            return None
        compiled = compile_pattern(pattern)
        if isinstance(compiled, str):
            self.warn("pattern-invalid", f'"pattern" {compiled}: ignored', name)
            return None
        return pattern

    def count(self, prop: Mapping[str, Any], key: str, name: str) -> int | None:
        """A non-negative integer constraint (minLength, maxItems, ...), or None when absent or bad."""
        value = prop.get(key, MISSING)
        if value is MISSING or value is None:
            return None
        if _is_number(value) and float(value).is_integer() and value >= 0:
            return int(value)
        self.warn("constraint-invalid", f'"{key}" must be a non-negative integer: ignored', name)
        return None

    # -- numbers -----------------------------------------------------------------------------------

    def number(self, name: str, prop: Mapping[str, Any], base: dict[str, Any], type_: str) -> FieldSpec:
        kind: FieldKind = "integer" if type_ == "integer" else "number"
        bounds: dict[str, float | None] = {}
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            value = prop.get(key, MISSING)
            bounds[key] = None
            if value is MISSING or value is None:
                continue
            if isinstance(value, bool) and key.startswith("exclusive"):
                continue  # draft-4 boolean form, folded into minimum/maximum below
            if _is_number(value):
                bounds[key] = value
            else:
                self.warn("constraint-invalid", f'"{key}" must be a number: ignored', name)
        # Draft 4 wrote `"exclusiveMinimum": true` next to `minimum`; honour it as the strict bound.
        for low, ex in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
            if prop.get(ex) is True and bounds[low] is not None:
                bounds[ex], bounds[low] = bounds[low], None
        lows = [(v, k) for k in ("minimum", "exclusiveMinimum") if (v := bounds[k]) is not None]
        highs = [(v, k) for k in ("maximum", "exclusiveMaximum") if (v := bounds[k]) is not None]
        if lows and highs:
            low, low_key = max(lows)
            high, high_key = min(highs)
            strict = low_key.startswith("exclusive") or high_key.startswith("exclusive")
            if low > high or (low == high and strict):
                self.warn(
                    "constraint-contradictory",
                    "no number meets both the lower and the upper bound: bounds ignored",
                    name,
                )
                bounds = dict.fromkeys(bounds)
        default = prop.get("default", MISSING)
        if default is not MISSING:
            if not _is_number(default):
                self.warn(
                    "default-invalid", f'"default" must be a number, not {_kind(default)}: ignored', name
                )
                default = MISSING
            elif kind == "integer":
                if float(default).is_integer():
                    default = int(default)
                else:
                    self.warn("default-invalid", '"default" must be a whole number: ignored', name)
                    default = MISSING
        spec = FieldSpec(
            kind=kind,
            default=default,
            minimum=bounds["minimum"],
            maximum=bounds["maximum"],
            exclusive_minimum=bounds["exclusiveMinimum"],
            exclusive_maximum=bounds["exclusiveMaximum"],
            **base,
        )
        return self.check_default(spec)

    # -- selects -----------------------------------------------------------------------------------

    def choice(self, name: str, prop: Mapping[str, Any], base: dict[str, Any]) -> FieldSpec:
        if "oneOf" in prop:
            if "enum" in prop:
                self.warn("choices-conflict", 'both "enum" and "oneOf": "oneOf" is used', name)
            choices = self.titled(prop.get("oneOf"), "oneOf", name)
        else:
            choices = self.enum(prop, name)
        default = prop.get("default", MISSING)
        if default is not MISSING and not (
            isinstance(default, str) and default in {c.value for c in choices}
        ):
            # A dropdown cannot show a value it does not offer, so the default is dropped.
            self.warn("default-invalid", '"default" is not one of the choices: ignored', name)
            default = MISSING
        return FieldSpec(kind="choice", default=default, choices=choices, **base)

    def multi(
        self, name: str, prop: Mapping[str, Any], items: Mapping[str, Any], base: dict[str, Any]
    ) -> FieldSpec:
        if "anyOf" in items:
            choices = self.titled(items.get("anyOf"), "items.anyOf", name)
        elif "oneOf" in items:
            # Not the spec's shape, but its meaning is clear (a titled option list); accepted with a warning.
            self.warn(
                "items-oneof", 'options under "items.oneOf": the spec uses "items.anyOf"; accepted', name
            )
            choices = self.titled(items.get("oneOf"), "items.oneOf", name)
        else:
            choices = self.enum(items, name, where="items.")
        min_items = self.count(prop, "minItems", name)
        max_items = self.count(prop, "maxItems", name)
        if min_items is not None and max_items is not None and min_items > max_items:
            self.warn("constraint-contradictory", '"minItems" is greater than "maxItems": both ignored', name)
            min_items = max_items = None
        if min_items is not None and choices and min_items > len(choices):
            self.warn(
                "constraint-contradictory", '"minItems" is more than the number of choices: ignored', name
            )
            min_items = None
        default = prop.get("default", MISSING)
        if default is not MISSING:
            values = {c.value for c in choices}
            if not isinstance(default, (list, tuple)) or not all(isinstance(v, str) for v in default):
                self.warn(
                    "default-invalid",
                    f'"default" must be a list of strings, not {_kind(default)}: ignored',
                    name,
                )
                default = MISSING
            elif not set(default) <= values:
                # A multi-select cannot show values it does not offer; dropping part of the default would
                # send something the server never proposed, so all of it is dropped.
                self.warn(
                    "default-invalid", '"default" has values that are not among the choices: ignored', name
                )
                default = MISSING
            else:
                default = list(dict.fromkeys(default))
        spec = FieldSpec(
            kind="multi", default=default, choices=choices, min_items=min_items, max_items=max_items, **base
        )
        return self.check_default(spec)

    def enum(self, holder: Mapping[str, Any], name: str, where: str = "") -> tuple[Choice, ...]:
        enum = holder.get("enum")
        if not isinstance(enum, (list, tuple)):
            self.warn("choice-invalid", f'"{where}enum" must be a list of strings, not {_kind(enum)}', name)
            self.warn("choices-empty", "no usable choices", name)
            return ()
        titles: list[Any] | None = None
        names = holder.get("enumNames", MISSING)
        if names is not MISSING:
            if (
                isinstance(names, (list, tuple))
                and len(names) == len(enum)
                and all(isinstance(t, str) for t in names)
            ):
                titles = list(names)
            else:
                self.warn(
                    "enum-names-mismatch",
                    f'"{where}enumNames" must be a list of strings as long as "{where}enum": ignored',
                    name,
                )
        entries = []
        for i, value in enumerate(enum):
            # Content for a select is a string on the wire; other members cannot round-trip, so they go.
            if not isinstance(value, str):
                self.warn(
                    "choice-invalid",
                    f'"{where}enum" has a member that is not a string ({_kind(value)}): skipped',
                    name,
                )
                continue
            entries.append((value, titles[i] if titles else value))
        return self.unique(entries, name)

    def titled(self, options: object, where: str, name: str) -> tuple[Choice, ...]:
        if not isinstance(options, (list, tuple)):
            self.warn(
                "choice-invalid", f'"{where}" must be a list of {{const, title}}, not {_kind(options)}', name
            )
            self.warn("choices-empty", "no usable choices", name)
            return ()
        entries = []
        for option in options:
            const = option.get("const") if isinstance(option, Mapping) else None
            if not isinstance(const, str):
                self.warn("choice-invalid", f'an entry of "{where}" has no string "const": skipped', name)
                continue
            title = option.get("title", const)
            if not isinstance(title, str):
                self.warn(
                    "choice-invalid",
                    f'an entry of "{where}" has a "title" that is not a string: the value is shown instead',
                    name,
                )
                title = const
            entries.append((const, title or const))
        return self.unique(entries, name)

    def unique(self, entries: list[tuple[str, str]], name: str) -> tuple[Choice, ...]:
        seen: dict[str, Choice] = {}
        for value, title in entries:
            if value in seen:
                self.warn("choice-duplicate", "the same choice value appears twice: later ones skipped", name)
                continue
            seen[value] = Choice(value, title)
        if not seen:
            # Rendered as a select with nothing to pick: a required one can only be declined or cancelled.
            self.warn("choices-empty", "no usable choices", name)
        return tuple(seen.values())

    # -- defaults ----------------------------------------------------------------------------------

    def check_default(self, spec: FieldSpec) -> FieldSpec:
        """Flag (but keep) a default that breaks the field's constraints, as a person's value would be."""
        if spec.default is MISSING:
            return spec
        from .validation import check_field  # a cycle at import time otherwise

        message, timed_out = check_field(spec, initial_value(spec))
        if timed_out:
            self.warn(
                "pattern-timeout",
                '"pattern" took too long on the default: it is no longer applied',
                spec.name,
            )
        if message is not None:
            self.warn(
                "default-constraint", f'"default" breaks the field\'s constraints: {message}', spec.name
            )
        return spec


def _truthy(value: object) -> bool:
    try:
        return bool(value)
    except Exception:
        return True


def _kind(value: object) -> str:
    """The JSON kind of a value, for messages (never the value itself)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return f"a {type(value).__name__}"


def _shown(value: object) -> str:
    """A server-sent keyword value for a message: short strings quoted, anything else by its kind."""
    if isinstance(value, str) and len(value) <= 40:
        return repr(value)
    return _kind(value)


def _default_date_ok(kind: str, value: str) -> bool:
    from .validation import parse_date, parse_date_time

    return (parse_date(value) if kind == "date" else parse_date_time(value)) is not None


def initial_value(spec: FieldSpec) -> Any:
    """The value a widget starts with: the schema's default, converted to what the widget holds.

    text/email/uri -> str ("" without default); number/integer -> str (text boxes, so an optional number
    can be empty); boolean -> bool (False without default); date -> datetime.date or None; date-time -> an
    aware datetime.datetime or None; choice -> the choice value (str) or None; multi -> tuple of str.
    Every one of these is accepted by `validate_field`/`build_content`.
    """
    default = spec.default
    kind = spec.kind
    if kind == "boolean":
        return bool(default) if default is not MISSING else False
    if kind == "multi":
        return tuple(default) if default is not MISSING else ()
    if kind == "choice":
        return default if default is not MISSING else None
    if default is MISSING:
        return None if kind in ("date", "date-time") else ""
    if kind in ("number", "integer"):
        return _fmt(default) if kind == "integer" or isinstance(default, float) else str(default)
    if kind == "date":
        from .validation import parse_date

        return parse_date(default)
    if kind == "date-time":
        from .validation import parse_date_time

        return parse_date_time(default)
    return default


def parse_schema(schema: object) -> FormSpec:
    """Parse whatever a server sent; never raises. Fields it cannot render are left out and reported."""
    return _Parser().parse(schema)


def check_schema(schema: object) -> list[Problem]:
    """Every problem (errors and warnings) in a requested schema."""
    return list(parse_schema(schema).problems)


def validate_schema(schema: object) -> FormSpec:
    """Parse a requested schema, raising SchemaError (code -32602) if it has any error."""
    spec = parse_schema(schema)
    if spec.errors:
        raise SchemaError(spec.problems)
    return spec
