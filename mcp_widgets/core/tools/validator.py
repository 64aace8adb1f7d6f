"""The validator a tool form checks its arguments with: jsonschema, with server patterns bounded in time."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..validation import jsonschema, pattern_ok


def _search(pattern: Any, text: Any) -> bool:
    """Whether a server pattern is found in `text`; a pattern that is unusable or too slow counts as found."""
    if not isinstance(pattern, str) or not isinstance(text, str):
        return True
    return pattern_ok(pattern, text) is not False


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


def _kw_required(validator: Any, required: Any, instance: Any, schema: Any) -> Iterator[Any]:
    # One error for the whole list: jsonschema makes one a missing key, each carrying the whole list, and a
    # form reading each of them walked the list once a missing key (10,000 required keys: 10^8 steps).
    if validator.is_type(instance, "object") and any(key not in instance for key in required):
        yield jsonschema.ValidationError("missing required properties")


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


def make_validator(schema: Mapping[str, Any]) -> Any:
    """A validator for the tool's schema whose server patterns run bounded in time (None if unusable).

    jsonschema runs patterns with `re` (no timeout): `pattern`, `patternProperties` and
    `additionalProperties` are replaced by versions using the engine's bounded `regex` search, and
    `unevaluatedProperties` (which matches patternProperties with `re` too) is skipped when there are any.
    `required` says every missing key in one error (its `validator_value` is the list; see `_kw_required`).
    """
    try:
        base = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        keywords = {
            "pattern": _kw_pattern,
            "patternProperties": _kw_pattern_properties,
            "additionalProperties": _kw_additional_properties,
            "required": _kw_required,
        }
        if _mentions(schema, "patternProperties"):
            keywords["unevaluatedProperties"] = _kw_skip
        cls = jsonschema.validators.extend(base, keywords)
        return cls(schema)
    except Exception:
        return None
