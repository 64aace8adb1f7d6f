"""The elicitation schema subset -> field descriptors, and every rule it can break (pure).

Imports only the standard library, `regex` (for server-sent patterns) and jsonschema (through `validation`,
which checks defaults): no widgets, kernel or SDK. The types it builds are `spec`'s; selects are `choices`'.

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

from collections.abc import Mapping
from typing import Any

from .choices import ChoiceParsing
from .exceptions import SchemaError
from .formats import parse_date, parse_date_time
from .spec import (
    MISSING,
    Choice,
    FieldKind,
    FieldSpec,
    FormSpec,
    Problem,
    compile_pattern,
    initial_value,
    is_number,
    keyword_shown,
    kind_of,
    truthy,
)
from .validation import check_field

__all__ = [  # the types are spec's, here too for whoever parses a schema
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


# --------------------------------------------------------------------------------------------------
# Parsing


_TYPES_ALLOWED = (
    "allowed: string, number, integer, boolean, or an array whose items have `enum` or "
    "`anyOf` [{const, title}] (multi-select)"
)
_FORMATS: dict[str, FieldKind] = {"email": "email", "uri": "uri", "date": "date", "date-time": "date-time"}
_COMBINATORS = ("oneOf", "anyOf", "allOf", "not")


class _Parser(ChoiceParsing):
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
                "schema-not-object", f"the requested schema must be a JSON object, not {kind_of(schema)}"
            )
            return FormSpec(fields=(), problems=tuple(self.problems))
        if schema.get("type") != "object":
            got = keyword_shown(schema["type"]) if "type" in schema else "missing"
            self.error("top-level-type", f'the top-level "type" must be "object" (got {got})')
        for key in _COMBINATORS:
            # Present-but-false/empty is harmless (some generators emit `"not": {}` or `"anyOf": []`).
            if key in schema and truthy(schema[key]):
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
            self.error("properties-not-object", f'"properties" must be an object, not {kind_of(properties)}')
            properties = {}
        required = self.required(schema.get("required", MISSING), properties)
        for name, prop in properties.items():
            if not isinstance(name, str):
                self.error("property-name", f"property names must be strings, not {kind_of(name)}")
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
                "required-invalid", f'"required" must be a list of property names, not {kind_of(required)}'
            )
            return set()
        names: set[str] = set()
        for entry in required:
            if not isinstance(entry, str):
                self.warn(
                    "required-invalid", f'"required" has an entry that is not a string ({kind_of(entry)})'
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
            self.warn("annotation-invalid", f'"{key}" must be a string, not {kind_of(value)}: ignored', prop)
            return ""
        return value

    # -- one property ------------------------------------------------------------------------------

    def property(self, name: str, prop: object, required: bool) -> FieldSpec | None:
        if not isinstance(prop, Mapping):
            self.error(
                "property-not-object", f"the property schema must be an object, not {kind_of(prop)}", name
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
                    "default-invalid",
                    f'"default" must be true or false, not {kind_of(default)}: ignored',
                    name,
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
        self.error("property-type", f"type {keyword_shown(type_)} is not allowed; {_TYPES_ALLOWED}", name)
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
                unknown = f"format {keyword_shown(fmt)} is not supported: rendered as text"
                self.warn("format-unknown", unknown, name)
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
            self.warn("default-invalid", f'"default" must be a string, not {kind_of(default)}: ignored', name)
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
            self.warn("pattern-invalid", f'"pattern" must be a string, not {kind_of(pattern)}: ignored', name)
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
        if is_number(value) and float(value).is_integer() and value >= 0:
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
            if is_number(value):
                bounds[key] = value
            else:
                self.warn("constraint-invalid", f'"{key}" must be a number: ignored', name)
        # Draft 4 wrote `"exclusiveMinimum": true` next to `minimum`; honour it as the strict bound.
        for inclusive, ex in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
            if prop.get(ex) is True and bounds[inclusive] is not None:
                bounds[ex], bounds[inclusive] = bounds[inclusive], None
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
            if not is_number(default):
                self.warn(
                    "default-invalid", f'"default" must be a number, not {kind_of(default)}: ignored', name
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

    # -- defaults ----------------------------------------------------------------------------------

    def check_default(self, spec: FieldSpec) -> FieldSpec:
        """Flag (but keep) a default that breaks the field's constraints, as a person's value would be."""
        if spec.default is MISSING:
            return spec
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


def _default_date_ok(kind: str, value: str) -> bool:
    return (parse_date(value) if kind == "date" else parse_date_time(value)) is not None


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
