"""Tool input schemas -> tool-form fields and arguments (pure), on schemas pydantic and MCPServer generate."""

from __future__ import annotations

import asyncio
import datetime as dt
import enum
import json
from collections.abc import Callable
from typing import Annotated, Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.server.mcpserver import MCPServer
from pydantic import AnyUrl, BaseModel, Field

from mcp_widgets import check_schema
from mcp_widgets.core.schema import MISSING, parse_schema
from mcp_widgets.core.tools.args import check_arguments, widget_value
from mcp_widgets.core.tools.parts import MAX_REF_DEPTH
from mcp_widgets.core.tools.schema import ARGUMENTS, MAX_FIELDS, ToolFormSpec, parse_tool_schema
from mcp_widgets.core.tools.signature import tool_docstring, tool_signature
from mcp_widgets.demo import create_server
from tests.inprocess.work import linear
from tests.servers.wide import tool_schema

CANARY = "SECRET-CANARY-7f3a"


class Color(str, enum.Enum):
    RED = "red"
    GREEN = "green"


class Inner(BaseModel):
    flag: bool = False
    depth: Annotated[int, Field(ge=0)] = 1


class Tree(BaseModel):
    label: str
    children: list[Tree] = []


def input_schema(fn: Callable[..., Any]) -> dict[str, Any]:
    """The inputSchema MCPServer generates for a tool with `fn`'s signature."""
    server = MCPServer("t")
    server.tool()(fn)
    tools = asyncio.run(server.list_tools())
    return dict(tools[0].input_schema)


def spec_of(fn: Callable[..., Any]) -> ToolFormSpec:
    return parse_tool_schema(input_schema(fn))


def kinds(spec: ToolFormSpec) -> dict[str, str]:
    return {f.name: f.kind for f in spec.fields}


# --------------------------------------------------------------------------- the demo's search_files


def demo_schema() -> dict[str, Any]:
    tools = asyncio.run(create_server(sign_in_port=0).list_tools())
    return dict(next(t for t in tools if t.name == "search_files").input_schema)


def test_demo_search_files_fields() -> None:
    schema = demo_schema()
    assert "$defs" in schema  # pydantic wrote the enum and the model as references
    spec = parse_tool_schema(schema)
    assert kinds(spec) == {
        "query": "text",
        "kind": "choice",
        "limit": "integer",
        "sort_by": "choice",
        "tags": "lines",
        "options": "json",
    }
    kind = spec.field("kind")
    assert kind.nullable and not kind.required and kind.default is None
    assert [c.value for c in kind.spec.choices] == ["text", "document", "temporary", "log"]
    assert kind.spec.title == "kind"  # not "FileKind": the enum's class name is not the field's title
    assert kind.spec.description == "Only files of this kind"
    query = spec.field("query")
    assert query.required and query.spec.required and query.spec.min_length == 1
    assert spec.field("limit").spec.default == 10 and spec.field("limit").spec.maximum == 100
    assert spec.field("options").reason == "nested object: edit as JSON"
    assert "Nested object" in spec.field("options").hint
    assert spec.field("tags").hint == "One item per line."
    assert spec.notes == ()


def test_demo_search_files_arguments() -> None:
    spec = parse_tool_schema(demo_schema())
    assert check_arguments(spec, {}).errors == {"query": "required"}
    # Untouched: defaults as the form shows them; `= None` fields are sent as null.
    assert check_arguments(spec, {"query": "tmp"}).arguments == {
        "query": "tmp",
        "kind": None,
        "limit": 10,
        "sort_by": "name",
        "tags": None,
        "options": None,
    }
    filled = check_arguments(
        spec,
        {
            "query": "tmp",
            "kind": "temporary",
            "limit": "3",
            "sort_by": "size",
            "tags": "dr\n\nft\n",
            "options": '{"min_size": 100}',
        },
    )
    assert filled.arguments == {
        "query": "tmp",
        "kind": "temporary",
        "limit": 3,
        "sort_by": "size",
        "tags": ["dr", "ft"],
        "options": {"min_size": 100},
    }


def test_json_errors_name_the_rule_never_the_value() -> None:
    spec = parse_tool_schema(demo_schema())
    bad_json = check_arguments(spec, {"query": "q", "options": '{"min_size": ' + CANARY})
    assert bad_json.errors["options"].startswith("not valid JSON (")
    nested = check_arguments(spec, {"query": "q", "options": json.dumps({"case_sensitive": CANARY})})
    assert nested.errors == {"options": "case_sensitive: must be true or false"}
    low = check_arguments(spec, {"query": "q", "options": '{"min_size": -5}'})
    assert low.errors == {"options": "min_size: must be at least 0"}
    wrong_type = check_arguments(spec, {"query": "q", "options": json.dumps([CANARY])})
    assert wrong_type.errors == {"options": "must be an object or null"}
    nan = check_arguments(spec, {"query": "q", "options": '{"min_size": NaN}'})
    assert "NaN" in nan.errors["options"] and nan.arguments is None
    for check in (bad_json, nested, low, wrong_type):
        assert check.arguments is None
        assert CANARY not in repr(check) and all(CANARY not in m for m in check.errors.values())


def test_too_deep_or_too_long_json_is_refused_with_a_message() -> None:
    spec = parse_tool_schema(demo_schema())
    deep = check_arguments(spec, {"query": "q", "options": "[" * 100_000 + "]" * 100_000})
    assert "not valid JSON" in deep.errors["options"]
    long = check_arguments(spec, {"query": "q", "options": " " * 1_000_001 + "{}"})
    assert "longer than" in long.errors["options"]


# --------------------------------------------------------------------------- pydantic shapes


def test_optional_shapes_and_what_empty_sends() -> None:
    def tool(
        must: int,
        must_or_null: int | None,
        opt: int = 5,
        opt_null: int | None = None,
        opt_five_or_null: int | None = 5,
        text: str = "hi",
    ) -> str:
        return ""

    spec = spec_of(tool)
    assert kinds(spec) == dict.fromkeys(
        ["must", "must_or_null", "opt", "opt_null", "opt_five_or_null"], "integer"
    ) | {"text": "text"}
    must_or_null = spec.field("must_or_null")
    assert must_or_null.required and must_or_null.nullable and not must_or_null.spec.required
    empty = {"must": "1", "must_or_null": "", "opt": "", "opt_null": "", "opt_five_or_null": "", "text": ""}
    # Required + nullable: null; optional: left out; nullable with a default: null (the person cleared it).
    assert check_arguments(spec, empty).arguments == {
        "must": 1,
        "must_or_null": None,
        "opt_null": None,
        "opt_five_or_null": None,
    }
    untouched = check_arguments(spec, {"must": "1"}).arguments
    assert untouched == {
        "must": 1,
        "must_or_null": None,
        "opt": 5,
        "opt_null": None,
        "opt_five_or_null": 5,
        "text": "hi",
    }
    assert check_arguments(spec, {}).errors == {"must": "required"}


def test_enums_by_reference_literals_and_non_string_choices() -> None:
    def tool(
        color: Color,
        maybe_color: Color | None = None,
        mode: Literal["fast", "deep"] = "deep",
        level: Literal[1, 2, 3] = 2,
        fixed: Literal["only"] = "only",
        flag: bool | None = None,
        colors: list[Color] = [],  # noqa: B006 - a default list, as people write it
        picks: list[Literal["a", "b"]] | None = None,
    ) -> str:
        return ""

    spec = spec_of(tool)
    assert kinds(spec) == {
        "color": "choice",
        "maybe_color": "choice",
        "mode": "choice",
        "level": "choice",
        "fixed": "choice",
        "flag": "choice",
        "colors": "multi",
        "picks": "multi",
    }
    assert spec.field("color").spec.required and spec.field("color").spec.title == "color"
    level = spec.field("level")
    assert [c.title for c in level.spec.choices] == ["1", "2", "3"] and level.spec.default == "2"
    assert [c.title for c in spec.field("flag").spec.choices] == ["true", "false"]
    values = {
        "color": "green",
        "level": widget_value(level, 3),
        "flag": widget_value(spec.field("flag"), False),
        "colors": ("red", "green"),
        "picks": ("b",),
    }
    assert check_arguments(spec, values).arguments == {
        "color": "green",
        "maybe_color": None,
        "mode": "deep",
        "level": 3,
        "fixed": "only",
        "flag": False,
        "colors": ["red", "green"],
        "picks": ["b"],
    }
    with pytest.raises(ValueError, match="no such choice"):
        widget_value(level, 4)
    with pytest.raises(ValueError):
        widget_value(level, True)  # True == 1 in Python, not in JSON


def test_formats_and_constraints_use_the_engine() -> None:
    def tool(
        day: dt.date,
        when: dt.datetime | None = None,
        site: AnyUrl | None = None,
        code: Annotated[str, Field(pattern=r"^[A-Z]{3}$")] = "ABC",
        ratio: Annotated[float, Field(gt=0, le=1)] = 0.5,
    ) -> str:
        return ""

    spec = spec_of(tool)
    assert kinds(spec) == {
        "day": "date",
        "when": "date-time",
        "site": "uri",
        "code": "text",
        "ratio": "number",
    }
    check = check_arguments(spec, {"day": "2027-01-02", "site": "not a uri", "code": "abc", "ratio": "0"})
    assert check.errors == {
        "site": "not a valid URI (e.g. https://example.com)",
        "code": "must match the pattern ^[A-Z]{3}$",
        "ratio": "must be more than 0",
    }
    good = check_arguments(spec, {"day": dt.date(2027, 1, 2), "when": "2027-01-02T10:00:00Z"})
    assert good.arguments == {
        "day": "2027-01-02",
        "when": "2027-01-02T10:00:00Z",
        "site": None,
        "code": "ABC",
        "ratio": 0.5,
    }


@pytest.mark.parametrize(
    ("annotation", "reason"),
    [
        (Inner, "nested object: edit as JSON"),
        (Tree, "nested object: edit as JSON"),
        (list[int], "a list of numbers: edit as JSON"),
        (list[Inner], "a list of objects: edit as JSON"),
        (list[list[str]], "a list of lists: edit as JSON"),
        (dict[str, int], "a map of keys to values: edit as JSON"),
        (tuple[int, str], "a fixed-length list: edit as JSON"),
        (int | str, "one of several types: edit as JSON"),
        (int | str | None, "one of several types: edit as JSON"),
        (Any, "any JSON value: edit as JSON"),
    ],
)
def test_rich_shapes_fall_back_to_json_and_say_why(annotation: Any, reason: str) -> None:
    def tool(value: Any) -> str:
        return ""

    tool.__annotations__ = {"value": annotation, "return": str}  # a real type, not the string "Any"

    spec = spec_of(tool)
    field = spec.field("value")
    assert (field.kind, field.reason) == ("json", reason)
    assert field.hint == reason[0].upper() + reason[1:] + "."


def test_json_fields_round_trip_through_the_real_schema() -> None:
    def tool(tree: Tree, pairs: dict[str, int] | None = None, nums: list[int] = [1, 2]) -> str:  # noqa: B006
        return ""

    spec = spec_of(tool)
    assert spec.field("nums").spec.default == "[1, 2]"  # the default, pre-filled as JSON
    tree = {"label": "a", "children": [{"label": "b"}]}
    values = {"tree": widget_value(spec.field("tree"), tree), "pairs": '{"x": 1}'}
    assert check_arguments(spec, values).arguments == {"tree": tree, "pairs": {"x": 1}, "nums": [1, 2]}
    broken = {"tree": json.dumps({"label": "a", "children": [{"children": []}]}), "pairs": '{"x": "y"}'}
    assert check_arguments(spec, broken).errors == {
        "tree": "children[item]: missing 'label'",
        "pairs": "{key}: must be a whole number",
    }


def test_lines_fields() -> None:
    def tool(words: list[str], maybe: list[str] | None = None, preset: list[str] = ["a", "b"]) -> str:  # noqa: B006
        return ""

    spec = spec_of(tool)
    assert kinds(spec) == {"words": "lines", "maybe": "lines", "preset": "lines"}
    assert spec.field("preset").spec.default == "a\nb"
    assert check_arguments(spec, {}).errors == {"words": "required"}
    words = widget_value(spec.field("words"), ["x", "y z"])
    assert check_arguments(spec, {"words": words}).arguments == {
        "words": ["x", "y z"],
        "maybe": None,
        "preset": ["a", "b"],
    }
    with pytest.raises(TypeError):
        widget_value(spec.field("words"), [1, 2])


# --------------------------------------------------------------------------- references


def test_reference_cycles_chains_and_foreign_documents_fall_back() -> None:
    chain = {f"D{i}": {"$ref": f"#/$defs/D{i + 1}"} for i in range(MAX_REF_DEPTH + 2)}
    chain[f"D{MAX_REF_DEPTH + 2}"] = {"type": "string"}
    schema = {
        "type": "object",
        "$defs": {
            "A": {"$ref": "#/$defs/B"},
            "B": {"$ref": "#/$defs/A"},
            "S": {"$ref": "#/$defs/T"},
            "T": {"type": "string", "title": "T", "description": "from T"},
            **chain,
        },
        "properties": {
            "cycle": {"$ref": "#/$defs/A"},
            "two_hops": {"$ref": "#/$defs/S", "title": "Two hops"},
            "deep": {"$ref": "#/$defs/D0"},
            "remote": {"$ref": "https://example.com/schema.json"},
            "missing": {"$ref": "#/$defs/Nope"},
            "anchor": {"$ref": "#thing"},
        },
    }
    spec = parse_tool_schema(schema)
    reasons = {f.name: f.reason for f in spec.fields}
    assert reasons == {
        "cycle": "recursive schema: edit as JSON",
        "two_hops": "",
        "deep": "references nested too deeply: edit as JSON",
        "remote": "refers to another document: edit as JSON",
        "missing": "refers to a definition the schema does not have: edit as JSON",
        "anchor": "refers to a named anchor: edit as JSON",
    }
    hops = spec.field("two_hops").spec
    assert (hops.kind, hops.title, hops.description) == ("text", "Two hops", "from T")
    # A value for a field whose reference cannot be resolved: the server checks it; we say we could not.
    check = check_arguments(spec, {"remote": '"x"'})
    assert check.ok and check.arguments is not None and check.arguments["remote"] == "x"
    assert check.warnings and "could not be checked" in check.warnings[0]


# --------------------------------------------------------------------------- server patterns stay bounded


@pytest.mark.timeout(20)
def test_nested_patterns_cannot_freeze_the_kernel() -> None:
    evil = "^(a+)+$"
    schema = {
        "type": "object",
        "properties": {
            "o": {
                "type": "object",
                "properties": {"s": {"type": "string", "pattern": evil}},
                "patternProperties": {evil: {"type": "integer"}},
                "additionalProperties": False,
            },
            "u": {"type": "object", "patternProperties": {evil: {}}, "unevaluatedProperties": False},
        },
    }
    spec = parse_tool_schema(schema)
    slow = "a" * 40 + "!"
    check = check_arguments(spec, {"o": json.dumps({"s": slow, slow: 1}), "u": json.dumps({slow: 1})})
    # Patterns run with the engine's bounded `regex` search (a pattern that times out is given up rather
    # than freeze the kernel, as for elicitation): whatever the outcome, the check returns.
    assert set(check.errors) <= {"o"}
    assert check_arguments(spec, {"o": '{"s": "b"}'}).errors == {"o": "s: must match the pattern ^(a+)+$"}
    assert check_arguments(spec, {"o": '{"zz": 1}'}).errors == {"o": "has keys the tool does not accept"}


def test_patterns_run_with_the_regex_engine() -> None:
    # `\p{Lu}` is a `regex` feature that `re` (what jsonschema uses) refuses: the bounded search is in use.
    schema = {
        "type": "object",
        "properties": {
            "o": {
                "type": "object",
                "properties": {"name": {"type": "string", "pattern": r"^\p{Lu}+$"}},
                "patternProperties": {r"^\p{Ll}$": {"type": "integer"}},
                "additionalProperties": False,
            }
        },
    }
    spec = parse_tool_schema(schema)
    assert check_arguments(spec, {"o": '{"name": "ÀB", "x": 1}'}).ok
    assert check_arguments(spec, {"o": '{"name": "àb"}'}).errors == {
        "o": "name: must match the pattern ^\\p{Lu}+$"
    }
    assert check_arguments(spec, {"o": '{"x": "one"}'}).errors == {"o": "{key}: must be a whole number"}
    assert check_arguments(spec, {"o": '{"XY": 1}'}).errors == {"o": "has keys the tool does not accept"}


# --------------------------------------------------------------------------- the schema as a whole


def test_top_level_notes_and_properties_beyond_the_limit() -> None:
    props = {f"p{i}": {"type": "string"} for i in range(MAX_FIELDS + 5)}
    spec = parse_tool_schema(
        {
            "type": "object",
            "properties": props,
            "required": [f"p{MAX_FIELDS + 1}"],
            "anyOf": [{"required": ["p0"]}, {"required": ["p1"]}],
        }
    )
    assert len(spec.fields) == MAX_FIELDS
    assert any('top-level "anyOf"' in n for n in spec.notes)
    assert any(f"only the first {MAX_FIELDS}" in n for n in spec.notes)
    errors = check_arguments(spec, {"p0": "x"}).errors
    assert errors == {ARGUMENTS: f"missing 'p{MAX_FIELDS + 1}'"}
    top = parse_tool_schema(
        {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "oneOf": [{"required": ["a"]}, {"required": ["b"]}],
        }
    )
    assert check_arguments(top, {}).errors == {ARGUMENTS: "must match exactly one of the allowed shapes"}
    assert check_arguments(top, {"a": "x"}).arguments == {"a": "x"}


def test_checking_10000_required_properties_is_linear_work() -> None:
    # Each missing key's error carried the whole required list, walked once a missing key (issue 48).
    def check(n: int) -> None:
        spec = parse_tool_schema(tool_schema(n))
        errors = check_arguments(spec, {"p0": "x"}).errors
        assert errors["p1"] == "required" and errors[ARGUMENTS] == f"missing 'p{MAX_FIELDS}'"

    few, many = linear(check)
    assert many > 5 * few  # it was counted


class Name(str):
    """A property name whose comparisons are calls (so that the work meter counts them)."""

    __hash__ = str.__hash__

    def __eq__(self, other: object) -> bool:
        return str.__eq__(self, other)


def test_a_tools_signature_and_docstring_of_10000_required_properties_are_linear_work() -> None:
    # Each property asked whether it was required of the required list: 10^8 comparisons at 10,000.
    def described(n: int) -> None:
        schema = tool_schema(n)
        schema["required"] = [Name(r) for r in schema["required"]]
        assert len(tool_signature(schema, None).parameters) == n
        assert "p9:" in tool_docstring("Wide.", schema, None, server="wide", tool="wide")

    few, many = linear(described)
    assert many > 5 * few  # it was counted


def test_a_message_naming_missing_keys_is_clipped() -> None:
    long = "k" * 100_000
    inner = tool_schema(10_000)
    inner["required"].append(long)
    spec = parse_tool_schema({"type": "object", "properties": {"o": inner}, "required": ["o", long]})
    errors = check_arguments(spec, {"o": "{}"}).errors
    assert errors["o"].startswith("missing 'p0', 'p1', ") and errors["o"].endswith(" more characters)")
    assert errors[ARGUMENTS].startswith("missing 'kkk") and errors[ARGUMENTS].endswith(" more characters)")
    assert max(len(m) for m in errors.values()) < 400


def test_odd_schemas_never_raise() -> None:
    for schema in (
        None,
        [],
        "x",
        {"type": "string"},
        {"properties": []},
        {"properties": {"a": 3, "b": True}},
        {"properties": {"a": {"type": ["string", "integer"]}, "b": {"type": "null"}}},
        {"properties": {"a": {"enum": []}, "b": {"enum": [{"x": 1}]}, "c": {"const": None}}},
        {"properties": {"a": {"type": "array", "items": {"anyOf": [{"type": "string"}]}}}},
    ):
        spec = parse_tool_schema(schema)
        check_arguments(spec, {})
    assert parse_tool_schema(None).notes == ("the input schema is not a JSON object",)
    weird = parse_tool_schema({"properties": {"a": 3, "b": True}})
    assert [(f.name, f.kind) for f in weird.fields] == [("a", "json"), ("b", "json")]


def test_no_arguments() -> None:
    def tool() -> str:
        return ""

    spec = spec_of(tool)
    assert spec.fields == () and check_arguments(spec, {}).arguments == {}


def test_elicitation_rules_are_not_loosened() -> None:
    # The very schema a tool form renders is still refused as an elicitation request.
    schema = demo_schema()
    elicited = parse_schema(schema)
    # No references followed, no anyOf unwrapped, no JSON boxes: an elicitation form would show text boxes
    # with warnings, exactly as before tool forms existed.
    assert {f.name: f.kind for f in elicited.fields}["kind"] == "text"
    assert not {f.kind for f in elicited.fields} & {"json", "lines"}
    assert ("property-type-missing", "options") in {(p.rule, p.property) for p in check_schema(schema)}
    spec = parse_tool_schema(schema)
    assert spec.field("tags").spec.default is MISSING


# --------------------------------------------------------------------------- anything a server sends


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
_KEYWORDS = st.sampled_from(
    [
        "type",
        "enum",
        "const",
        "anyOf",
        "oneOf",
        "allOf",
        "items",
        "properties",
        "default",
        "$ref",
        "title",
        "format",
        "minimum",
        "pattern",
        "additionalProperties",
        "prefixItems",
        "required",
    ]
)
_SCHEMAS = st.recursive(
    st.dictionaries(_KEYWORDS, _JSON, max_size=4)
    | st.sampled_from(
        [{"type": t} for t in ("string", "integer", "number", "boolean", "null", "array", "object")]
    ),
    lambda inner: st.dictionaries(_KEYWORDS, inner | st.lists(inner, max_size=3) | _JSON, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    props=st.dictionaries(st.text(max_size=6), _SCHEMAS, max_size=4),
    defs=st.dictionaries(st.text(max_size=4), _SCHEMAS, max_size=3),
    values=st.dictionaries(st.text(max_size=6), st.text(max_size=12) | _JSON, max_size=4),
)
def test_any_schema_builds_and_any_input_gets_an_answer(
    props: dict[str, Any], defs: dict[str, Any], values: dict[str, Any]
) -> None:
    schema = {"type": "object", "properties": props, "$defs": defs, "required": list(props)[:1]}
    spec = parse_tool_schema(schema)
    assert [f.name for f in spec.fields] == list(props)
    for f in spec.fields:
        assert f.kind in (
            "text",
            "email",
            "uri",
            "date",
            "date-time",
            "number",
            "integer",
            "boolean",
            "choice",
            "multi",
            "json",
            "lines",
        )
        assert bool(f.reason) == (f.kind == "json")
    check = check_arguments(spec, values)
    assert (check.arguments is None) == bool(check.errors)


def test_a_top_level_reference_is_followed() -> None:
    schema = {
        "$ref": "#/$defs/Args",
        "$defs": {"Args": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}},
    }
    spec = parse_tool_schema(schema)
    assert kinds(spec) == {"n": "integer"} and spec.notes == ()
    assert check_arguments(spec, {"n": "4"}).arguments == {"n": 4}
    assert check_arguments(spec, {}).errors == {"n": "required"}
    looped = parse_tool_schema({"$ref": "#"})
    assert looped.fields == ()
    assert looped.notes == (
        "the input schema's top-level $ref cannot be followed (recursive schema): "
        "arguments are checked anyway",
    )
