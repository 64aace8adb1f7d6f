"""A tool's `inputSchema` -> fields the form engine renders, and a check of the arguments (pure).

Imports only the standard library, jsonschema and regex (through `schema` / `validation`).

Tool schemas are richer than elicitation schemas (pydantic writes them). What becomes a normal field:

- string / number / integer / boolean, with the engine's formats (email, uri, date, date-time), bounds,
  lengths, patterns and defaults;
- `enum` / `const` (of any JSON scalars) -> a choice; an array of string `enum` items -> a multi-select;
- an array of plain strings -> a text box with one item per line;
- local `$ref` / `$defs` (pydantic's enums and models), followed to a bounded depth, cycles refused;
- `anyOf` / `oneOf` of one type and `{"type": "null"}` (pydantic's `X | None`), and `"type": [X, "null"]`:
  an optional field of type X.

Everything else (objects, arrays of objects or numbers, unions of several types, tuples, maps, recursive or
external references, schemas without a type) is a JSON text box, and the field says why ("nested object:
edit as JSON"). Those are the "json" field kind; "lines" is the one-per-line kind. Neither kind ever comes
out of `schema.parse_schema`: elicitation requests keep their own, stricter rules.

Empty fields: an optional field left empty is left out of the arguments; a nullable one is sent as null
when the tool requires the key or declares a default (the person cleared what the form pre-filled, so the
tool must not fall back to that default). `check_arguments` converts what the form holds, then validates the
arguments against the tool's real `inputSchema` (with server patterns bounded in time, as for elicitation).
Messages name fields and rules, never values.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast
from urllib.parse import unquote

from .schema import parse_schema
from .spec import MISSING, Choice, FieldKind, FieldSpec, FormSpec, Problem, _fmt, initial_value
from .validation import _pattern_ok, build_content, check_field, jsonschema

__all__ = [
    "ARGUMENTS",
    "ArgumentCheck",
    "ToolField",
    "ToolFormSpec",
    "check_arguments",
    "parse_tool_schema",
    "widget_value",
]

JSON: FieldKind = cast("FieldKind", "json")
"""A JSON text box (the fallback kind)."""
LINES: FieldKind = cast("FieldKind", "lines")
"""A text box holding a list of strings, one per line."""

ARGUMENTS = ""
"""The key of `ArgumentCheck.errors` for a problem with the arguments as a whole (not one field's)."""

MAX_REF_DEPTH = 16
"""References followed in a row (a $ref to a $ref ...) before the field falls back to JSON."""
MAX_FIELDS = 100
"""More properties than this are not shown (the form says so)."""
MAX_JSON_TEXT = 1_000_000
"""Longer JSON text is refused rather than parsed."""

_EMPTY: Any = object()
_SCALARS = (str, int, float, bool)


@dataclass(frozen=True)
class ToolField:
    """One tool argument as the form shows it."""

    spec: FieldSpec
    """What the form engine renders (its kind may also be "json" or "lines"; see the module docstring)."""
    required: bool = False
    """The tool requires the key (for a nullable field, empty is sent as null)."""
    nullable: bool = False
    """The tool accepts null for it (`X | None`)."""
    default: Any = MISSING
    """The schema's default as the tool declares it (None for a null default), or MISSING."""
    reason: str = ""
    """Why this argument is edited as JSON ("nested object: edit as JSON"); empty for other fields."""
    hint: str = ""
    """Shown under the control: the reason, or how to fill it ("one item per line")."""
    placeholder: str = ""
    mapping: tuple[tuple[str, Any], ...] = field(default=(), repr=False)
    """For a choice whose values are not all strings: choice value -> the argument value it stands for."""

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def kind(self) -> str:
        return self.spec.kind


@dataclass(frozen=True)
class ToolFormSpec:
    """A parsed tool input schema: fields in the schema's order, notes for a person, engine problems."""

    fields: tuple[ToolField, ...]
    notes: tuple[str, ...] = ()
    """What the form cannot show or only checks (a top-level anyOf, properties left out, ...)."""
    problems: tuple[Problem, ...] = ()
    """Warnings the form engine found in the schema's fields (for server authors)."""
    schema: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """The tool's real inputSchema (arguments are checked against it)."""
    validator: Any = field(default=None, repr=False, compare=False)
    """A jsonschema validator for `schema` (None when the schema cannot be used to check)."""

    def field(self, name: str) -> ToolField:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)


@dataclass(frozen=True)
class ArgumentCheck:
    """Per-field messages (key `ARGUMENTS` for the whole), and the arguments to send when there are none."""

    errors: Mapping[str, str] = field(default_factory=dict)
    arguments: dict[str, Any] | None = field(default=None, repr=False)
    warnings: tuple[str, ...] = ()
    """E.g. the schema could not be used to check the arguments (the server checks them anyway)."""

    @property
    def ok(self) -> bool:
        return not self.errors


# --------------------------------------------------------------------------------------------------
# References


class _Refused(Exception):
    """A part of the schema the form cannot follow; the message is the reason shown to the person."""


def _pointer(root: Mapping[str, Any], ref: str) -> Any:
    if not ref.startswith("#"):
        raise _Refused("refers to another document: edit as JSON")
    fragment = ref[1:]
    if not fragment:
        return root
    if not fragment.startswith("/"):
        raise _Refused("refers to a named anchor: edit as JSON")
    node: Any = root
    for raw in fragment[1:].split("/"):
        token = unquote(raw).replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            raise _Refused("refers to a definition the schema does not have: edit as JSON")
    return node


def _deref(root: Mapping[str, Any], schema: Any) -> Any:
    """Follow the `$ref` chain at the top of `schema`: the target, overlaid with the referring keys.

    The target's `title` is dropped: pydantic gives it the name of the type (e.g. the enum class), which is
    not the field's title.
    """
    seen: list[str] = []
    while isinstance(schema, Mapping) and "$ref" in schema:
        ref = schema["$ref"]
        if not isinstance(ref, str):
            raise _Refused("has a malformed reference: edit as JSON")
        if ref in seen:
            raise _Refused("recursive schema: edit as JSON")
        if len(seen) >= MAX_REF_DEPTH:
            raise _Refused("references nested too deeply: edit as JSON")
        seen.append(ref)
        target = _pointer(root, ref)
        siblings = {k: v for k, v in schema.items() if k != "$ref"}
        if isinstance(target, bool):
            schema = {} if target else {"not": {}}
        elif not isinstance(target, Mapping):
            raise _Refused("refers to something that is not a schema: edit as JSON")
        else:
            schema = {**{k: v for k, v in target.items() if k != "title"}, **siblings}
    return schema


def _is_null(schema: Any) -> bool:
    return isinstance(schema, Mapping) and (
        schema.get("type") == "null" or ("const" in schema and schema["const"] is None)
    )


def _unwrap_null(root: Mapping[str, Any], prop: Mapping[str, Any]) -> tuple[Mapping[str, Any], bool]:
    """`X | None` (anyOf/oneOf with a null branch, or a type list with "null") -> (X, True)."""
    nullable = False
    for key in ("anyOf", "oneOf"):
        branches = prop.get(key)
        if not isinstance(branches, list) or not any(_is_null(b) for b in branches):
            continue
        others = [b for b in branches if not _is_null(b)]
        if len(others) != 1:
            return prop, False  # several types besides null: the caller falls back to JSON
        inner = _deref(root, others[0])
        if not isinstance(inner, Mapping):
            return prop, False
        outer = {k: v for k, v in prop.items() if k != key}
        prop, nullable = {**inner, **outer}, True
        break
    type_ = prop.get("type")
    if isinstance(type_, list) and "null" in type_:
        rest = [t for t in type_ if t != "null"]
        prop = {**prop, "type": rest[0] if len(rest) == 1 else rest}
        nullable = True
    enum = prop.get("enum")
    if isinstance(enum, list) and None in enum:
        prop = {**prop, "enum": [m for m in enum if m is not None]}
        nullable = True
    return prop, nullable


# --------------------------------------------------------------------------------------------------
# Parsing


_COMBINATORS = ("anyOf", "oneOf", "allOf", "not", "if")
_IGNORED_KEYS = ("$defs", "definitions", "$schema", "$id", "$anchor", "$comment", "examples")


def _kind_word(schema: Mapping[str, Any]) -> str:
    type_ = schema.get("type")
    if type_ in ("number", "integer"):
        return "numbers"
    if type_ == "object" or "properties" in schema:
        return "objects"
    if type_ == "array" or "items" in schema:
        return "lists"
    if type_ == "boolean":
        return "true/false values"
    if type_ == "string":
        return "text items"
    return "values"


def _fallback_reason(root: Mapping[str, Any], prop: Mapping[str, Any]) -> str:
    """Why a property is edited as JSON, for the person ("nested object: edit as JSON")."""
    for key in ("anyOf", "oneOf"):
        if key in prop:
            return "one of several types: edit as JSON"
    if "allOf" in prop:
        return "a combination of schemas: edit as JSON"
    if "not" in prop or "if" in prop:
        return "a conditional schema: edit as JSON"
    type_ = prop.get("type")
    if isinstance(type_, list):
        return "one of several types: edit as JSON"
    if type_ == "object" or "properties" in prop or "additionalProperties" in prop:
        if isinstance(prop.get("properties"), Mapping) and prop["properties"]:
            return "nested object: edit as JSON"
        if isinstance(prop.get("additionalProperties"), Mapping):
            return "a map of keys to values: edit as JSON"
        return "an object: edit as JSON"
    if type_ == "array" or "items" in prop or "prefixItems" in prop:
        items = prop.get("items")
        if "prefixItems" in prop or isinstance(items, list):
            return "a fixed-length list: edit as JSON"
        try:
            items = _deref(root, items) if items is not None else {}
        except _Refused:
            items = {}
        return f"a list of {_kind_word(items) if isinstance(items, Mapping) else 'values'}: edit as JSON"
    if type_ == "null":
        return "always null: edit as JSON"
    if type_ is None:
        return "any JSON value: edit as JSON"
    return "a type the form does not know: edit as JSON"


def _json_text(value: Any) -> str | None:
    """A default as the text a JSON box starts with (None when it cannot be written as JSON)."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        if len(text) > 60:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=2)
    except (TypeError, ValueError):
        return None
    return text


def _placeholder(prop: Mapping[str, Any]) -> str:
    type_ = prop.get("type")
    if type_ == "object" or "properties" in prop:
        names = list(prop.get("properties") or {})[:2] if isinstance(prop.get("properties"), Mapping) else []
        inner = ", ".join(f'"{n}": …' for n in names if isinstance(n, str))
        return f"JSON, e.g. {{{inner}}}" if inner else "JSON object, e.g. {}"
    if type_ == "array" or "items" in prop:
        return "JSON list, e.g. [ … ]"
    return "JSON"


class _ToolParser:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.problems: list[Problem] = []

    def parse(self) -> ToolFormSpec:
        notes: list[str] = []
        try:  # some generators put the arguments' model itself behind a top-level $ref
            root = _deref(self.root, self.root)
        except _Refused as refused:
            root = self.root
            why = str(refused).split(":")[0]
            notes.append(
                f"the input schema's top-level $ref cannot be followed ({why}): arguments are checked anyway"
            )
        if not isinstance(root, Mapping):
            root = {}
        if root.get("type", "object") != "object":
            notes.append('the input schema\'s top-level "type" is not "object": arguments are checked anyway')
        for key in _COMBINATORS:
            if key in root and root[key] not in (None, [], {}):
                notes.append(
                    f'the input schema has a top-level "{key}": the form shows the declared arguments '
                    "and checks the rest before running"
                )
        properties = root.get("properties")
        if not isinstance(properties, Mapping):
            properties = {}
        required_list = root.get("required")
        required = (
            {r for r in required_list if isinstance(r, str)} if isinstance(required_list, list) else set()
        )
        names = [n for n in properties if isinstance(n, str)]
        if len(names) > MAX_FIELDS:
            notes.append(f"the tool takes {len(names)} arguments: only the first {MAX_FIELDS} are shown")
            names = names[:MAX_FIELDS]
        fields = tuple(self.property(name, properties[name], name in required) for name in names)
        return ToolFormSpec(
            fields=fields,
            notes=tuple(notes),
            problems=tuple(self.problems),
            schema=self.root,
            validator=_make_validator(self.root),
        )

    def property(self, name: str, raw: Any, required: bool) -> ToolField:
        if raw is True or raw == {}:
            return self.json(name, {}, required, False, "any JSON value: edit as JSON")
        if not isinstance(raw, Mapping):
            return self.json(name, {}, required, False, "a schema the form cannot read: edit as JSON")
        # Annotations of the property itself (pydantic puts them beside a $ref or an anyOf).
        title = raw.get("title") if isinstance(raw.get("title"), str) else None
        try:
            prop = _deref(self.root, raw)
            prop, nullable = _unwrap_null(self.root, prop)
        except _Refused as refused:
            return self.json(name, raw, required, False, str(refused), title=title)
        prop = {k: v for k, v in prop.items() if k not in _IGNORED_KEYS}
        try:
            made = self.shaped(name, prop, required, nullable)
        except _Refused as refused:
            return self.json(name, prop, required, nullable, str(refused))
        if made is not None:
            return made
        return self.json(name, prop, required, nullable, _fallback_reason(self.root, prop))

    # -- shapes the engine renders ---------------------------------------------------------------------------
    def shaped(self, name: str, prop: dict[str, Any], required: bool, nullable: bool) -> ToolField | None:
        if any(k in prop for k in _COMBINATORS):
            return None
        if "const" in prop and "enum" not in prop:
            prop = {**prop, "enum": [prop["const"]]}
        if "enum" in prop:
            return self.choice(name, prop, required, nullable)
        type_ = prop.get("type")
        if isinstance(type_, list):
            return None
        if type_ == "boolean" and nullable:
            return self.choice(name, {**prop, "enum": [True, False]}, required, nullable)
        if type_ in ("string", "number", "integer", "boolean"):
            return self.engine(name, prop, required, nullable)
        if type_ == "array":
            return self.array(name, prop, required, nullable)
        return None

    def engine(
        self, name: str, prop: Mapping[str, Any], required: bool, nullable: bool, **extra: Any
    ) -> ToolField | None:
        """Let the elicitation engine parse one property (same rules, same messages)."""
        cleaned = dict(prop)
        default = cleaned.get("default", MISSING)
        if default is None:
            del cleaned["default"]  # pydantic's `= None`: the field starts empty
        person_required = required and not nullable
        form = parse_schema(
            {"type": "object", "properties": {name: cleaned}, "required": [name] if person_required else []}
        )
        if not form.fields or form.errors:
            return None
        self.problems.extend(form.problems)
        return ToolField(spec=form.fields[0], required=required, nullable=nullable, default=default, **extra)

    def choice(self, name: str, prop: Mapping[str, Any], required: bool, nullable: bool) -> ToolField | None:
        enum = prop.get("enum")
        if not isinstance(enum, list) or not enum or not all(isinstance(m, _SCALARS) for m in enum):
            return None
        if all(isinstance(m, str) for m in enum):
            return self.engine(name, {**prop, "type": "string", "enum": enum}, required, nullable)
        # Values that are not strings (Literal[1, 2], booleans): the choice holds their JSON text.
        keys: dict[str, Any] = {}
        for member in enum:
            if isinstance(member, float) and not math.isfinite(member):
                continue
            keys.setdefault(json.dumps(member), member)
        if not keys:
            return None
        choices = tuple(Choice(k, v if isinstance(v, str) else k) for k, v in keys.items())
        default = prop.get("default", MISSING)
        key_default = MISSING
        if default is not MISSING and default is not None and isinstance(default, _SCALARS):
            key = json.dumps(default)
            key_default = key if key in keys else MISSING
        spec = FieldSpec(
            name=name,
            kind="choice",
            title=prop.get("title") if isinstance(prop.get("title"), str) else name,
            description=prop.get("description") if isinstance(prop.get("description"), str) else "",
            required=required and not nullable,
            default=key_default,
            choices=choices,
            schema=prop,
        )
        return ToolField(
            spec=spec,
            required=required,
            nullable=nullable,
            default=default,
            mapping=tuple(keys.items()),
        )

    def array(self, name: str, prop: Mapping[str, Any], required: bool, nullable: bool) -> ToolField | None:
        items = prop.get("items")
        if "prefixItems" in prop or not isinstance(items, Mapping):
            return None
        items = _deref(self.root, items)
        if not isinstance(items, Mapping) or any(k in items for k in _COMBINATORS):
            return None
        enum = items.get("enum")
        if isinstance(enum, list) and enum and all(isinstance(m, str) for m in enum):
            clean_items = {"type": "string", "enum": enum}
            return self.engine(name, {**prop, "items": clean_items}, required, nullable)
        if items.get("type") == "string" and "enum" not in items and "const" not in items:
            return self.lines(name, prop, required, nullable)
        return None

    # -- text boxes of our own -------------------------------------------------------------------------------
    def lines(self, name: str, prop: Mapping[str, Any], required: bool, nullable: bool) -> ToolField | None:
        default = prop.get("default", MISSING)
        text: Any = MISSING
        if isinstance(default, list):
            if not all(isinstance(v, str) and v.strip() and "\n" not in v and "\r" not in v for v in default):
                return None  # it could not be written one per line: JSON shows it exactly
            text = "\n".join(default)
        spec = self.text_spec(name, prop, LINES, required and not nullable, text)
        return ToolField(
            spec=spec,
            required=required,
            nullable=nullable,
            default=default,
            hint="One item per line.",
            placeholder="one item per line",
        )

    def json(
        self,
        name: str,
        prop: Mapping[str, Any],
        required: bool,
        nullable: bool,
        reason: str,
        *,
        title: str | None = None,
    ) -> ToolField:
        default = prop.get("default", MISSING) if isinstance(prop, Mapping) else MISSING
        text: Any = MISSING
        if default is not MISSING and default is not None:  # `= None`: the box starts empty
            text = _json_text(default)
            if text is None:
                text = MISSING
        if title is not None:
            prop = {**prop, "title": title}
        spec = self.text_spec(name, prop, JSON, required and not nullable, text)
        return ToolField(
            spec=spec,
            required=required,
            nullable=nullable,
            default=default,
            reason=reason,
            hint=reason[:1].upper() + reason[1:] + ".",
            placeholder=_placeholder(prop) if isinstance(prop, Mapping) else "JSON",
        )

    def text_spec(
        self, name: str, prop: Mapping[str, Any], kind: FieldKind, required: bool, default: Any
    ) -> FieldSpec:
        title = prop.get("title")
        description = prop.get("description")
        return FieldSpec(
            name=name,
            kind=kind,
            title=title if isinstance(title, str) and title else name,
            description=description if isinstance(description, str) else "",
            required=required,
            default=default,
            schema=prop,
        )


def parse_tool_schema(schema: object) -> ToolFormSpec:
    """Turn a tool's inputSchema into form fields; never raises (what it cannot render becomes JSON)."""
    if not isinstance(schema, Mapping):
        return ToolFormSpec(fields=(), notes=("the input schema is not a JSON object",), schema={})
    return _ToolParser(schema).parse()


# --------------------------------------------------------------------------------------------------
# What the form holds -> arguments


def widget_value(tool_field: ToolField, value: Any) -> Any:
    """A Python value as the control of `tool_field` holds it (what `fill` enters for a person).

    JSON fields take the text a person would type (a str) or any other value, written as JSON; one-per-line
    fields take a str or a list of str; choices with non-string values take the value itself.
    """
    kind = tool_field.kind
    if kind == JSON:
        if isinstance(value, str):
            return value
        text = _json_text(value)
        if text is None:
            raise TypeError(
                f"field {tool_field.name!r} takes JSON text or a value that can be written as JSON"
            )
        return text
    if kind == LINES:
        if isinstance(value, str):
            return value
        if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
            return "\n".join(value)
        raise TypeError(f"field {tool_field.name!r} takes a list of str (or the text, one item per line)")
    if tool_field.mapping and value is not None:
        for key, member in tool_field.mapping:
            if type(member) is type(value) and member == value:
                return key
        raise ValueError(f"field {tool_field.name!r} has no such choice")
    return value


def _convert(tool_field: ToolField, value: Any) -> tuple[Any, str | None]:
    """The argument value for what the control holds (or _EMPTY), or a message for the person."""
    spec = tool_field.spec
    if spec.kind in (JSON, LINES):
        text = "" if value is None else value
        if not isinstance(text, str):
            return _EMPTY, "must be text"
        if not text.strip():
            return _EMPTY, "required" if spec.required else None
        if len(text) > MAX_JSON_TEXT:
            return _EMPTY, f"is longer than {MAX_JSON_TEXT:,} characters"
        if spec.kind == LINES:
            return [line for line in text.splitlines() if line.strip()], None
        return _parse_json(text)
    message = check_field(spec, value)[0]
    if message is not None:
        return _EMPTY, message
    content = build_content(FormSpec(fields=(spec,)), {spec.name: value})
    if spec.name not in content:
        return _EMPTY, None
    converted = content[spec.name]
    if tool_field.mapping:
        converted = dict(tool_field.mapping)[converted]
    return converted, None


def _refuse_constant(name: str) -> Any:
    raise ValueError(name)


def _parse_json(text: str) -> tuple[Any, str | None]:
    try:
        return json.loads(text, parse_constant=_refuse_constant), None
    except json.JSONDecodeError as exc:
        # exc.msg is the parser's rule ("Expecting value"); the text itself is never quoted.
        return _EMPTY, f"not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
    except ValueError:
        return _EMPTY, "not valid JSON (NaN and Infinity are not JSON numbers)"
    except RecursionError:
        return _EMPTY, "not valid JSON here (nested too deeply)"


def check_arguments(spec: ToolFormSpec, values: Mapping[str, Any]) -> ArgumentCheck:
    """Convert what the form holds and validate it against the tool's inputSchema.

    `values` maps field names to what the controls hold (fields it leaves out keep their initial value).
    """
    errors: dict[str, str] = {}
    arguments: dict[str, Any] = {}
    for f in spec.fields:
        value = values[f.name] if f.name in values else _initial(f)
        converted, message = _convert(f, value)
        if message is not None:
            errors[f.name] = message
        elif converted is not _EMPTY:
            arguments[f.name] = converted
        elif f.nullable and (f.required or f.default is not MISSING):
            arguments[f.name] = None
    warnings: list[str] = []
    for where, message in _schema_errors(spec, arguments, warnings):
        if where == ARGUMENTS or where in {f.name for f in spec.fields}:
            errors.setdefault(where, message)
        else:
            errors.setdefault(ARGUMENTS, f"{where}: {message}")
    return ArgumentCheck(errors=errors, arguments=None if errors else arguments, warnings=tuple(warnings))


def _initial(f: ToolField) -> Any:
    if f.kind in (JSON, LINES):
        return "" if f.spec.default is MISSING else f.spec.default
    return initial_value(f.spec)


# --------------------------------------------------------------------------------------------------
# Checking against the real schema (patterns bounded in time, messages without values)


def _search(pattern: Any, text: Any) -> bool:
    """Whether a server pattern is found in `text`; a pattern that is unusable or too slow counts as found."""
    if not isinstance(pattern, str) or not isinstance(text, str):
        return True
    return _pattern_ok(pattern, text) is not False


def _kw_pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield jsonschema.ValidationError("does not match the pattern")


def _kw_pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object") or not isinstance(patterns, Mapping):
        return
    for pattern, subschema in patterns.items():
        for key, item in instance.items():
            if _search(pattern, key):
                yield from validator.descend(item, subschema, path=key, schema_path=pattern)


def _kw_additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    declared = schema.get("properties") or {}
    patterns = schema.get("patternProperties") or {}
    extras = [k for k in instance if k not in declared and not any(_search(p, k) for p in patterns)]
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif extra is False and extras:
        yield jsonschema.ValidationError("additional properties are not allowed")


def _kw_skip(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
    return iter(())


def _mentions(schema: Any, key: str, depth: int = 0) -> bool:
    if depth > 64:
        return True
    if isinstance(schema, Mapping):
        return key in schema or any(_mentions(v, key, depth + 1) for v in schema.values())
    if isinstance(schema, list):
        return any(_mentions(v, key, depth + 1) for v in schema)
    return False


def _make_validator(schema: Mapping[str, Any]) -> Any:
    """A validator for the tool's schema whose server patterns run bounded in time (None if unusable).

    jsonschema runs patterns with `re` (no timeout): `pattern`, `patternProperties` and
    `additionalProperties` are replaced by versions using the engine's bounded `regex` search, and
    `unevaluatedProperties` (which matches patternProperties with `re` too) is skipped when there are any.
    """
    try:
        base = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        keywords = {
            "pattern": _kw_pattern,
            "patternProperties": _kw_pattern_properties,
            "additionalProperties": _kw_additional_properties,
        }
        if _mentions(schema, "patternProperties"):
            keywords["unevaluatedProperties"] = _kw_skip
        cls = jsonschema.validators.extend(base, keywords)
        return cls(schema)
    except Exception:
        return None


_TYPE_WORDS = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "object": "an object",
    "array": "a list",
    "null": "null",
}


def _plural(n: Any, word: str) -> str:
    return f"{_fmt(n)} {word}" if n == 1 else f"{_fmt(n)} {word}s"


def _rule_message(error: Any) -> str:
    """A person's message for one jsonschema error: the rule and the schema's numbers, never the value."""
    rule = error.validator
    n = error.validator_value
    number = isinstance(n, (int, float)) and not isinstance(n, bool)
    if rule == "type":
        types = n if isinstance(n, list) else [n]
        return "must be " + " or ".join(_TYPE_WORDS.get(str(t), str(t)) for t in types)
    if rule == "enum":
        return "not one of the allowed values"
    if rule == "const":
        return "not the value the tool expects"
    if rule == "required" and isinstance(n, list):
        instance = error.instance if isinstance(error.instance, Mapping) else {}
        missing = [r for r in n if isinstance(r, str) and r not in instance]
        return "missing " + ", ".join(repr(m) for m in missing) if missing else "missing a required key"
    if number:
        texts = {
            "minimum": f"must be at least {_fmt(n)}",
            "maximum": f"must be at most {_fmt(n)}",
            "exclusiveMinimum": f"must be more than {_fmt(n)}",
            "exclusiveMaximum": f"must be less than {_fmt(n)}",
            "multipleOf": f"must be a multiple of {_fmt(n)}",
            "minLength": f"must be at least {_plural(n, 'character')}",
            "maxLength": f"must be at most {_plural(n, 'character')}",
            "minItems": f"must have at least {_plural(n, 'item')}",
            "maxItems": f"must have at most {_plural(n, 'item')}",
            "minProperties": f"must have at least {_plural(n, 'key')}",
            "maxProperties": f"must have at most {_plural(n, 'key')}",
        }
        if rule in texts:
            return texts[rule]
    if rule == "pattern" and isinstance(n, str):
        return "must match the pattern " + (n if len(n) <= 60 else n[:59] + "…")
    texts = {
        "uniqueItems": "items must all be different",
        "additionalProperties": "has keys the tool does not accept",
        "anyOf": "does not match any of the allowed shapes",
        "oneOf": "must match exactly one of the allowed shapes",
        "not": "is a value the tool does not accept",
        "dependentRequired": "needs other keys alongside it",
        "contains": "does not contain an item the tool requires",
        "unevaluatedProperties": "has keys the tool does not accept",
        "unevaluatedItems": "has items the tool does not accept",
        "propertyNames": "has a key the tool does not accept",
        "false": "is not accepted",
    }
    if rule is None:
        return "is not accepted"
    return texts.get(str(rule), f"breaks the schema's rule “{rule}”")


def _where(error: Any) -> list[str]:
    """The schema property names on the way to an error (from the schema's path: no typed keys)."""
    names: list[str] = []
    path = list(error.absolute_schema_path)
    i = 0
    while i < len(path) - 1:  # the last token is the rule that failed, not a step on the way
        token = path[i]
        if token == "properties" and i + 1 < len(path):
            names.append(str(path[i + 1]))
            i += 2
            continue
        if token in ("items", "prefixItems", "contains"):
            names.append("[item]")
        elif token in ("additionalProperties", "patternProperties"):
            names.append("{key}")
            if token == "patternProperties":
                i += 1
        i += 1
    return names


def _deepest(error: Any) -> tuple[Any, str | None]:
    """For anyOf/oneOf (pydantic's `X | None`): the most telling error inside the branches.

    A branch that failed only on its type (the null branch, for an object) says little; the deepest other
    error is shown instead, or when every branch failed on its type, the types they allow.
    """
    for _ in range(MAX_REF_DEPTH):
        if error.validator not in ("anyOf", "oneOf") or not error.context:
            break
        telling = [e for e in error.context if not (e.validator == "type" and not e.relative_path)]
        if not telling:
            types: list[str] = []
            for e in error.context:
                for t in e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]:
                    word = _TYPE_WORDS.get(str(t), str(t))
                    if word not in types:
                        types.append(word)
            return error, "must be " + " or ".join(types)
        if len({e.schema_path[0] if e.schema_path else None for e in telling}) > 1:
            break  # several branches came close: none of them alone says what is wrong
        error = max(telling, key=lambda e: len(e.absolute_path))
    return error, None


def _schema_errors(
    spec: ToolFormSpec, arguments: Mapping[str, Any], warnings: list[str]
) -> Iterator[tuple[str, str]]:
    """(field or ARGUMENTS, message) for every way `arguments` breaks the tool's schema."""
    validator = spec.validator
    if validator is None:
        if spec.schema:
            warnings.append("the tool's input schema cannot be used to check the arguments")
        return
    try:
        found = list(validator.iter_errors(dict(arguments)))
    except Exception as exc:  # a broken schema (e.g. an unresolvable $ref): the server checks anyway
        warnings.append(f"the tool's input schema could not be checked ({type(exc).__name__})")
        return
    names = {f.name for f in spec.fields}
    for error in found:
        error, message = _deepest(error)
        message = message or _rule_message(error)
        path = list(error.absolute_path)
        if not path:
            if error.validator == "required" and isinstance(error.validator_value, list):
                for missing in error.validator_value:
                    if isinstance(missing, str) and missing not in arguments:
                        yield (
                            (missing if missing in names else ARGUMENTS),
                            ("required" if missing in names else f"missing {missing!r}"),
                        )
                continue
            yield ARGUMENTS, message
            continue
        top = path[0]
        inner = _where(error)[1:]
        where = ".".join(inner).replace(".[", "[")
        yield str(top), f"{where}: {message}" if where else message
