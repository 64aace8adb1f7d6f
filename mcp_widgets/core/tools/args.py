"""What a tool form holds -> the arguments, checked against the tool's real inputSchema (pure).

Server patterns are bounded in time, as for elicitation; messages name fields and rules, never values.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from ..spec import MISSING, FormSpec, initial_value
from ..text import number_text, plural, quoted
from ..validation import build_content, check_field
from .parts import MAX_REF_DEPTH, json_text
from .schema import ARGUMENTS, JSON, LINES, MAX_JSON_TEXT, ArgumentCheck, ToolField, ToolFormSpec

__all__ = ["check_arguments", "widget_value"]

_EMPTY: Any = object()


def widget_value(tool_field: ToolField, value: Any) -> Any:
    """A Python value as the control of `tool_field` holds it (what `fill` enters for a person).

    JSON fields take the text a person would type (a str) or any other value, written as JSON; one-per-line
    fields take a str or a list of str; choices with non-string values take the value itself.
    """
    kind = tool_field.kind
    if kind == JSON:
        if isinstance(value, str):
            return value
        text = json_text(value)
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
    names = spec.names
    for where, message in _schema_errors(spec, arguments, warnings):
        if where == ARGUMENTS or where in names:
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


_TYPE_WORDS = {
    "string": "text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "object": "an object",
    "array": "a list",
    "null": "null",
}


def rule_message(error: Any) -> str:
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
        return "missing " + quoted(missing) if missing else "missing a required key"
    if number:
        texts = {
            "minimum": f"must be at least {number_text(n)}",
            "maximum": f"must be at most {number_text(n)}",
            "exclusiveMinimum": f"must be more than {number_text(n)}",
            "exclusiveMaximum": f"must be less than {number_text(n)}",
            "multipleOf": f"must be a multiple of {number_text(n)}",
            "minLength": f"must be at least {plural(n, 'character')}",
            "maxLength": f"must be at most {plural(n, 'character')}",
            "minItems": f"must have at least {plural(n, 'item')}",
            "maxItems": f"must have at most {plural(n, 'item')}",
            "minProperties": f"must have at least {plural(n, 'key')}",
            "maxProperties": f"must have at most {plural(n, 'key')}",
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


def deepest_error(error: Any) -> tuple[Any, str | None]:
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
    names = spec.names
    for error in found:
        error, message = deepest_error(error)
        message = message or rule_message(error)
        path = list(error.absolute_path)
        if not path:
            if error.validator == "required" and isinstance(error.validator_value, list):
                unlisted = False
                for missing in error.validator_value:
                    if not isinstance(missing, str) or missing in arguments:
                        continue
                    if missing in names:
                        yield missing, "required"
                    elif not unlisted:  # the first key beyond the form's fields says it; the rest add nothing
                        unlisted = True
                        yield ARGUMENTS, f"missing {quoted([missing])}"
                continue
            yield ARGUMENTS, message
            continue
        top = path[0]
        inner = _where(error)[1:]
        where = ".".join(inner).replace(".[", "[")
        yield str(top), f"{where}: {message}" if where else message
