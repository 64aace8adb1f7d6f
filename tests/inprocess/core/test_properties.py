"""Property-based tests of the pure core: valid schemas always build; any values validate cleanly."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import jsonschema
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from mcp_widgets.core.schema import FormSpec, parse_schema
from mcp_widgets.core.validation import build_content, validate_content, validate_field

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

names = st.text(st.characters(codec="utf-8"), min_size=1, max_size=12)
texts = st.text(max_size=20)
counts = st.integers(min_value=0, max_value=30)
numbers = st.one_of(st.integers(-1000, 1000), st.floats(-1000, 1000, allow_nan=False))
# Patterns from a fixed, safe list: random regexes would mostly test the regex engine, not us.
patterns = st.sampled_from(["^[a-z]+$", "[0-9]", "^.{0,5}$", "x", "^(ab|cd)*$", "@"])


def maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), strategy)


def drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


@st.composite
def string_props(draw: st.DrawFn) -> dict[str, Any]:
    low, high = sorted([draw(counts), draw(counts)])
    fmt = draw(maybe(st.sampled_from(["email", "uri", "date", "date-time"])))
    default: Any = None
    if draw(st.booleans()):
        default = {
            None: draw(texts),
            "email": "a@example.com",
            "uri": "https://example.com",
            "date": "2024-02-29",
            "date-time": "2024-01-05T10:00:00Z",
        }[fmt]
    return drop_none(
        {
            "type": "string",
            "title": draw(maybe(texts)),
            "description": draw(maybe(texts)),
            "minLength": low if draw(st.booleans()) else None,
            "maxLength": high if draw(st.booleans()) else None,
            "format": fmt,
            "pattern": draw(maybe(patterns)) if fmt is None else None,
            "default": default,
        }
    )


@st.composite
def number_props(draw: st.DrawFn) -> dict[str, Any]:
    type_ = draw(st.sampled_from(["number", "integer"]))
    low, high = sorted([draw(numbers), draw(numbers)])
    if type_ == "integer":
        low, high = int(low), int(high)
    strict_low, strict_high = draw(st.booleans()), draw(st.booleans())
    if low == high:
        strict_low = strict_high = False
    default = draw(maybe(st.integers(-1000, 1000) if type_ == "integer" else numbers))
    return drop_none(
        {
            "type": type_,
            ("exclusiveMinimum" if strict_low else "minimum"): low if draw(st.booleans()) else None,
            ("exclusiveMaximum" if strict_high else "maximum"): high if draw(st.booleans()) else None,
            "default": default,
        }
    )


@st.composite
def choice_props(draw: st.DrawFn) -> dict[str, Any]:
    values = draw(st.lists(texts, min_size=1, max_size=6, unique=True))
    default = draw(maybe(st.sampled_from(values)))
    shape = draw(st.sampled_from(["enum", "oneOf", "enumNames"]))
    prop: dict[str, Any] = {"type": "string"}
    if shape == "oneOf":
        prop["oneOf"] = [{"const": v, "title": draw(texts)} for v in values]
    else:
        prop["enum"] = values
        if shape == "enumNames":
            prop["enumNames"] = [draw(texts) for _ in values]
    if default is not None:
        prop["default"] = default
    return prop


@st.composite
def multi_props(draw: st.DrawFn) -> dict[str, Any]:
    values = draw(st.lists(texts, min_size=1, max_size=6, unique=True))
    if draw(st.booleans()):
        items: dict[str, Any] = {"type": "string", "enum": values}
    else:
        items = {"anyOf": [{"const": v, "title": draw(texts)} for v in values]}
    low, high = sorted([draw(st.integers(0, len(values))), draw(st.integers(0, len(values)))])
    prop = {"type": "array", "items": items}
    if draw(st.booleans()):
        prop["minItems"] = low
    if draw(st.booleans()):
        prop["maxItems"] = high
    if draw(st.booleans()):
        prop["default"] = draw(st.lists(st.sampled_from(values), unique=True))
    return prop


boolean_props = st.builds(lambda d: drop_none({"type": "boolean", "default": d}), maybe(st.booleans()))
property_schemas = st.one_of(string_props(), number_props(), boolean_props, choice_props(), multi_props())


@st.composite
def valid_schemas(draw: st.DrawFn) -> dict[str, Any]:
    properties = draw(st.dictionaries(names, property_schemas, max_size=6))
    required = draw(st.lists(st.sampled_from(sorted(properties)), unique=True)) if properties else []
    return {"type": "object", "properties": properties, "required": required}


@given(valid_schemas())
@SETTINGS
def test_valid_schemas_parse_without_errors(schema: dict[str, Any]) -> None:
    spec = parse_schema(schema)
    assert spec.errors == ()
    # The only warning a valid schema can earn: a random default that breaks its own constraints.
    assert {p.rule for p in spec.warnings} <= {"default-constraint"}
    assert [f.name for f in spec.fields] == list(schema["properties"])
    assert {f.name for f in spec.fields if f.required} == set(schema["required"])


json_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10))
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
keywords = st.sampled_from(
    [
        "type", "properties", "required", "enum", "enumNames", "oneOf", "anyOf", "allOf", "not", "items",
        "format", "pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "minItems", "maxItems", "default", "title", "description", "const",
    ]
)  # fmt: skip
schema_like = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(keywords, st.text(max_size=5)), inner, max_size=6),
        st.sampled_from(["object", "string", "number", "integer", "boolean", "array", "email", "date"]),
    ),
    max_leaves=30,
)


@given(
    st.one_of(json_values, schema_like, st.builds(lambda p: {"type": "object", "properties": p}, schema_like))
)
@SETTINGS
def test_any_input_parses_without_raising(schema: object) -> None:
    spec = parse_schema(schema)
    assert isinstance(spec, FormSpec)
    for problem in spec.problems:
        assert problem.severity in ("error", "warning") and problem.rule and problem.message


widget_values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(),
    st.text(max_size=30),
    st.from_regex(r"[+-]?[0-9]{1,6}(\.[0-9]{0,3})?([eE][+-]?[0-9])?", fullmatch=True),
    st.sampled_from(["a@example.com", "https://example.com", "2024-01-05", "2024-01-05T10:00:00Z", "@", "x"]),
    st.dates(),
    st.datetimes(),
    st.datetimes(timezones=st.just(dt.timezone.utc)),
    st.lists(st.text(max_size=5), max_size=4),
    st.tuples(st.text(max_size=5)),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@st.composite
def schemas_and_values(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    schema = draw(valid_schemas())
    spec = parse_schema(schema)
    values: dict[str, Any] = {}
    for f in spec.fields:
        if not draw(st.booleans()):
            continue  # left untouched: the default applies
        if f.choices and draw(st.booleans()):
            picks = [c.value for c in f.choices]
            values[f.name] = (
                draw(st.sampled_from(picks)) if f.kind == "choice" else draw(st.lists(st.sampled_from(picks)))
            )
        else:
            values[f.name] = draw(widget_values)
    return schema, values


@given(schemas_and_values())
@SETTINGS
def test_any_values_are_accepted_or_refused_with_messages(
    case: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    schema, values = case
    spec = parse_schema(schema)
    result = validate_content(spec, values)
    names_ = {f.name for f in spec.fields}
    for f in spec.fields:
        if f.name in values:
            assert validate_field(f, values[f.name]) == result.errors.get(f.name)
    event("accepted" if result.ok else "refused")
    if result.ok:
        content = result.content
        assert content is not None
        assert set(content) <= names_
        json.dumps(content, allow_nan=False)  # plain JSON: str, int, float, bool, list of str
        for v in content.values():
            assert isinstance(v, (str, int, float, bool)) or (
                isinstance(v, list) and all(isinstance(x, str) for x in v)
            )
        # What we accept, the server's own schema accepts.
        jsonschema.Draft202012Validator(schema).validate(content)
        assert build_content(spec, values) == content
    else:
        assert result.content is None
        assert set(result.errors) <= names_
        assert all(isinstance(m, str) and m for m in result.errors.values())
