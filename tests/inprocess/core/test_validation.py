from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from mcp_widgets.core import validation as _validation
from mcp_widgets.core.schema import FieldSpec, FormSpec, parse_schema
from mcp_widgets.core.validation import (
    ValidationResult,
    build_content,
    check_field,
    is_email,
    is_uri,
    parse_date,
    parse_date_time,
    validate_content,
    validate_field,
)

UTC = dt.timezone.utc


def field(prop: dict[str, Any], *, required: bool = False) -> FieldSpec:
    spec = parse_schema({"type": "object", "properties": {"f": prop}, "required": ["f"] if required else []})
    return spec.fields[0]


def form(properties: dict[str, Any], required: list[str] | None = None) -> FormSpec:
    spec = parse_schema({"type": "object", "properties": properties, "required": required or []})
    assert spec.ok, spec.problems
    return spec


# -- required and empty ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prop", "empty"),
    [
        ({"type": "string"}, ""),
        ({"type": "string"}, None),
        ({"type": "string", "format": "email"}, ""),
        ({"type": "string", "format": "uri"}, None),
        ({"type": "integer"}, ""),
        ({"type": "integer"}, "   "),
        ({"type": "number"}, None),
        ({"type": "string", "format": "date"}, None),
        ({"type": "string", "format": "date"}, ""),
        ({"type": "string", "format": "date-time"}, None),
        ({"type": "string", "enum": ["a"]}, None),
        ({"type": "string", "enum": ["a"]}, ""),
    ],
)
def test_required_empty_and_optional_empty(prop: dict[str, Any], empty: object) -> None:
    assert validate_field(field(prop, required=True), empty) == "required"
    assert validate_field(field(prop), empty) is None


def test_required_boolean_is_satisfied_by_false() -> None:
    # JSON Schema `required` means present; an unchecked box is the answer false.
    assert validate_field(field({"type": "boolean"}, required=True), False) is None
    assert validate_field(field({"type": "boolean"}, required=True), None) is None


def test_required_multi_may_be_empty_unless_min_items() -> None:
    assert validate_field(field({"type": "array", "items": {"enum": ["a"]}}, required=True), []) is None
    f = field({"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 1}, required=True)
    assert validate_field(f, ()) == "choose at least 1"


def test_optional_empty_multi_ignores_min_items() -> None:
    f = field({"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 2})
    assert validate_field(f, []) is None
    assert validate_field(f, ["a"]) == "choose at least 2"


# -- messages --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("prop", "value", "message"),
    [
        ({"type": "string", "minLength": 3}, "ab", "must be at least 3 characters"),
        ({"type": "string", "minLength": 1}, " ", None),
        ({"type": "string", "minLength": 2}, "é", "must be at least 2 characters"),
        ({"type": "string", "maxLength": 1}, "ab", "must be at most 1 character"),
        ({"type": "string", "maxLength": 100}, "x" * 101, "must be at most 100 characters"),
        ({"type": "string", "maxLength": 3}, "abc", None),
        ({"type": "string"}, 5, "must be text"),
        ({"type": "integer", "maximum": 100}, "101", "must be at most 100"),
        ({"type": "integer", "maximum": 100}, "100", None),
        ({"type": "integer", "minimum": 1}, "0", "must be at least 1"),
        ({"type": "number", "minimum": 0.5}, "0.25", "must be at least 0.5"),
        ({"type": "number", "maximum": 100.0}, 100.5, "must be at most 100"),
        ({"type": "number", "exclusiveMinimum": 0}, "0", "must be more than 0"),
        ({"type": "number", "exclusiveMaximum": 1}, "1", "must be less than 1"),
        ({"type": "number", "exclusiveMaximum": 1}, "0.999", None),
        ({"type": "integer"}, "2.5", "must be a whole number"),
        ({"type": "integer"}, "abc", "must be a whole number"),
        ({"type": "integer"}, 2.5, "must be a whole number"),
        ({"type": "integer"}, True, "must be a whole number"),
        ({"type": "integer"}, "2.0", None),
        ({"type": "integer"}, " 42 ", None),
        ({"type": "integer"}, "1e3", None),
        ({"type": "number"}, "abc", "must be a number"),
        ({"type": "number"}, "1,5", "must be a number"),
        ({"type": "number"}, "nan", "must be a number"),
        ({"type": "number"}, "inf", "must be a number"),
        ({"type": "number"}, "1e999", "must be a number"),
        ({"type": "number"}, "0x10", "must be a number"),
        ({"type": "number"}, "1_000", "must be a number"),
        ({"type": "number"}, "٣", "must be a number"),
        ({"type": "number"}, "9" * 5000, "must be a number"),
        ({"type": "number"}, float("nan"), "must be a number"),
        ({"type": "number"}, [1], "must be a number"),
        ({"type": "number"}, "-.5e-3", None),
        ({"type": "number"}, "+7", None),
        ({"type": "boolean"}, "yes", "must be true or false"),
        ({"type": "boolean"}, 1, "must be true or false"),
        ({"type": "string", "enum": ["a", "b"]}, "c", "not one of the choices"),
        ({"type": "string", "enum": ["a", "b"]}, 1, "not one of the choices"),
        ({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}, "A", "not one of the choices"),
        ({"type": "array", "items": {"enum": ["a", "b"]}}, ["a", "z"], "not one of the choices"),
        ({"type": "array", "items": {"enum": ["a", "b"]}}, "a", "not one of the choices"),
        ({"type": "array", "items": {"enum": ["a", "b"]}}, [1], "not one of the choices"),
        ({"type": "array", "items": {"enum": ["a", "b", "c"]}, "minItems": 2}, ["a"], "choose at least 2"),
        (
            {"type": "array", "items": {"enum": ["a", "b", "c"]}, "maxItems": 2},
            ["a", "b", "c"],
            "choose at most 2",
        ),
        ({"type": "array", "items": {"enum": ["a", "b", "c"]}, "maxItems": 1}, ["a", "a"], None),
        ({"type": "string", "pattern": "^[A-Z]{2}$"}, "abc", "must match the pattern ^[A-Z]{2}$"),
        ({"type": "string", "pattern": "[0-9]"}, "abc1def", None),
    ],
)
def test_messages(prop: dict[str, Any], value: object, message: str | None) -> None:
    assert validate_field(field(prop), value) == message


def test_messages_never_contain_the_value() -> None:
    secret = "S3CR3T-VALUE-42"
    cases: list[tuple[dict[str, Any], object]] = [
        ({"type": "string", "maxLength": 2}, secret),
        ({"type": "string", "format": "email"}, secret),
        ({"type": "string", "format": "uri"}, secret),
        ({"type": "string", "format": "date"}, secret),
        ({"type": "string", "format": "date-time"}, secret),
        ({"type": "integer"}, secret),
        ({"type": "number"}, secret),
        ({"type": "string", "enum": ["a"]}, secret),
        ({"type": "array", "items": {"enum": ["a"]}}, [secret]),
        ({"type": "string", "pattern": "^x$"}, secret),
    ]
    for prop, value in cases:
        message = validate_field(field(prop), value)
        assert message is not None
        assert secret not in message and "S3CR3T" not in message


def test_long_patterns_are_shortened_in_messages() -> None:
    pattern = "^" + "a" * 200 + "$"
    message = validate_field(field({"type": "string", "pattern": pattern}), "b")
    assert message is not None and message.startswith("must match the pattern ^aaa") and message.endswith("…")
    assert len(message) < 100


def test_pattern_applies_to_formatted_strings() -> None:
    f = field({"type": "string", "format": "email", "pattern": "@example\\.com$"})
    assert validate_field(f, "a@example.com") is None
    assert validate_field(f, "a@other.com") == "must match the pattern @example\\.com$"


# -- formats ---------------------------------------------------------------------------------------

GOOD_EMAILS = ["a@b.co", "first.last+tag@sub.example.org", "x@b.c", "o'neil@example.ie", "jörg@exämple.de"]
BAD_EMAILS = [
    "@",
    "a@",
    "@b.c",
    "a b@c.d",
    "a@b",
    "a@@b.c",
    "a@b@c.d",
    "a@b..c",
    "a@.b.c",
    "a@b.c.",
    ".a@b.c",
    "a.@b.c",
    "a..b@c.d",
    "a@-b.c",
    "a@b-.c",
    "a@b_c.d",
    "a@1.2",
    "a\t@b.c",
    '"a b"@c.d',
    "a@[192.0.2.1]",
    "plainaddress",
    "a@" + "b" * 64 + ".com",
    "a" * 65 + "@b.co",
    "a@b.c\u200b",
]


@pytest.mark.parametrize("value", GOOD_EMAILS)
def test_good_emails(value: str) -> None:
    assert is_email(value)
    assert validate_field(field({"type": "string", "format": "email"}), value) is None


@pytest.mark.parametrize("value", BAD_EMAILS)
def test_bad_emails(value: str) -> None:
    assert not is_email(value)
    assert validate_field(field({"type": "string", "format": "email"}), value) == "not a valid email address"


GOOD_URIS = [
    "https://example.com",
    "http://localhost:8080/path?q=1#frag",
    "https://user:pw@example.com/",
    "https://[::1]:443/",
    "mailto:a@b.co",
    "urn:isbn:0451450523",
    "file:///etc/hosts",
    "https://example.com/a%20b",
    "ftp://ftp.example.org",
    "https://例え.jp/",
]
BAD_URIS = [
    "no-scheme.com",
    "http://",
    "https://",
    "http:",
    "//example.com",
    "/relative/path",
    "example",
    "1http://example.com",
    "https://exa mple.com",
    "https://example.com/\nx",
    "http://example.com:port/",
    "https://[::1/",
    "https://[zz]/",
    "https://example.com/%zz",
    "https://example.com/%2",
    "C:\\Windows\\file",
    'https://example.com/"quoted"',
    "https://example.com/<tag>",
    "",
]


@pytest.mark.parametrize("value", GOOD_URIS)
def test_good_uris(value: str) -> None:
    assert is_uri(value)
    assert validate_field(field({"type": "string", "format": "uri"}), value) is None


@pytest.mark.parametrize("value", BAD_URIS)
def test_bad_uris(value: str) -> None:
    assert not is_uri(value)
    expected = None if value == "" else "not a valid URI (e.g. https://example.com)"
    assert validate_field(field({"type": "string", "format": "uri"}), value) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-02-29", dt.date(2024, 2, 29)),
        (" 2024-01-05 ", dt.date(2024, 1, 5)),
        (dt.date(2024, 1, 5), dt.date(2024, 1, 5)),
        (dt.datetime(2024, 1, 5, 23, 0), dt.date(2024, 1, 5)),
    ],
)
def test_good_dates(value: object, expected: dt.date) -> None:
    assert parse_date(value) == expected
    assert validate_field(field({"type": "string", "format": "date"}), value) is None


@pytest.mark.parametrize(
    "value",
    [
        "2024-02-30",
        "2023-02-29",
        "2024-13-01",
        "2024-00-10",
        "2024-1-5",
        "24-01-05",
        "2024/01/05",
        "05.01.2024",
        "2024-01-05T10:00:00Z",
        "０２０２４-01-05",
        "２０２４-01-05",
        "0000-01-01",
        "tomorrow",
        20240105,
        ["2024-01-05"],
    ],
)
def test_bad_dates(value: object) -> None:
    assert parse_date(value) is None
    assert (
        validate_field(field({"type": "string", "format": "date"}), value) == "not a valid date (YYYY-MM-DD)"
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2024-01-05T10:00:00Z", dt.datetime(2024, 1, 5, 10, tzinfo=UTC)),
        ("2024-01-05t10:00:00z", dt.datetime(2024, 1, 5, 10, tzinfo=UTC)),
        (
            "2024-01-05T10:00:00.5-05:30",
            dt.datetime(2024, 1, 5, 10, 0, 0, 500000, tzinfo=dt.timezone(-dt.timedelta(hours=5, minutes=30))),
        ),
        ("2024-01-05T10:00:00.123456789+00:00", dt.datetime(2024, 1, 5, 10, 0, 0, 123456, tzinfo=UTC)),
        (dt.datetime(2024, 1, 5, 10, tzinfo=UTC), dt.datetime(2024, 1, 5, 10, tzinfo=UTC)),
    ],
)
def test_good_date_times(value: object, expected: dt.datetime) -> None:
    assert parse_date_time(value) == expected
    assert validate_field(field({"type": "string", "format": "date-time"}), value) is None


@pytest.mark.parametrize(
    "value",
    [
        "2024-01-05",
        "2024-01-05 10:00:00Z",
        "2024-01-05T10:00Z",
        "2024-01-05T25:00:00Z",
        "2024-01-05T10:60:00Z",
        "2024-01-05T10:00:61Z",
        "2024-02-30T10:00:00Z",
        "2024-01-05T10:00:00+24:00",
        "2024-01-05T10:00:00+02:60",
        "2024-01-05T10:00:00+0200",
        "2024-01-05T10:00:00.Z",
        "now",
        dt.date(2024, 1, 5),
        dt.datetime(2024, 1, 5, tzinfo=dt.timezone(dt.timedelta(seconds=30))),
        12345,
    ],
)
def test_bad_date_times(value: object) -> None:
    assert parse_date_time(value) is None
    message = validate_field(field({"type": "string", "format": "date-time"}), value)
    assert message == "not a valid date and time (e.g. 2024-01-05T10:00:00Z)"


@pytest.mark.parametrize(
    "value", ["2024-01-05T10:00:00", "2024-01-05T10:00:00.25", dt.datetime(2024, 1, 5, 10)]
)
def test_date_time_without_time_zone_asks_for_one(value: object) -> None:
    assert parse_date_time(value) is None
    message = validate_field(field({"type": "string", "format": "date-time"}), value)
    assert message is not None and message.startswith("needs a time zone")


@pytest.mark.parametrize(
    ("prop", "typed", "sent"),
    [
        ({"type": "string", "format": "email"}, " a@b.co\n", "a@b.co"),
        ({"type": "string", "format": "uri"}, "\thttps://example.com ", "https://example.com"),
        ({"type": "string", "format": "date"}, " 2024-01-05 ", "2024-01-05"),
    ],
)
def test_addresses_and_dates_are_trimmed(prop: dict[str, Any], typed: str, sent: str) -> None:
    assert not is_email(typed) and not is_uri(typed)
    spec = form({"f": prop})
    assert validate_content(spec, {"f": typed}).content == {"f": sent}


@pytest.mark.parametrize("prop", [{"type": "string", "format": "email"}, {"type": "string", "format": "uri"}])
def test_blank_addresses_are_empty(prop: dict[str, Any]) -> None:
    assert validate_field(field(prop, required=True), "   ") == "required"
    assert validate_content(form({"f": prop}), {"f": "  "}).content == {}


# -- hostile patterns ------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _fresh_timeouts() -> None:
    _validation._TIMED_OUT.clear()


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("pattern", "value"),
    [("^(a|a)*$", "a" * 40 + "!"), ("(a|aa)+$", "a" * 60 + "!"), ("(x+x+)+y", "x" * 5000)],
)
def test_catastrophic_patterns_time_out_without_blocking(pattern: str, value: str) -> None:
    f = field({"type": "string", "pattern": pattern})
    assert f.pattern == pattern
    assert check_field(f, value) == (None, True)
    # Once given up, the pattern is not run again: not on this value, nor on any other.
    assert check_field(f, value) == (None, True)
    assert check_field(f, "zzz") == (None, True)
    result = validate_content(FormSpec(fields=(f,)), {"f": value})
    assert result.ok and result.content == {"f": value}
    assert [(p.severity, p.rule, p.property) for p in result.problems] == [
        ("warning", "pattern-timeout", "f")
    ]


@pytest.mark.timeout(30)
def test_a_huge_value_against_a_nested_pattern_finishes() -> None:
    f = field({"type": "string", "pattern": r"^(\w+\s?)*$"})
    assert validate_field(f, "word " * 20000 + "!") in (None, "must match the pattern ^(\\w+\\s?)*$")


@pytest.mark.timeout(30)
@pytest.mark.parametrize("pattern", ["(a{1000}){1000}", "x{4294967294}", "(", "a" * 5000])
def test_unusable_patterns_do_not_block(pattern: str) -> None:
    f = field({"type": "string", "pattern": pattern})
    assert f.pattern is None
    assert validate_field(f, "anything") is None


def test_pattern_search_is_not_anchored() -> None:
    f = field({"type": "string", "pattern": "b"})
    assert validate_field(f, "abc") is None
    assert validate_field(f, "xyz") == "must match the pattern b"


# -- content ---------------------------------------------------------------------------------------

EVERYTHING = {
    "name": {"type": "string"},
    "email": {"type": "string", "format": "email"},
    "age": {"type": "integer"},
    "ratio": {"type": "number"},
    "agree": {"type": "boolean"},
    "color": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}]},
    "tags": {
        "type": "array",
        "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]},
    },
    "day": {"type": "string", "format": "date"},
    "at": {"type": "string", "format": "date-time"},
}


def test_content_types() -> None:
    spec = form(EVERYTHING)
    values = {
        "name": "Ada",
        "email": "ada@example.org",
        "age": "36",
        "ratio": "0.5",
        "agree": True,
        "color": "g",
        "tags": ("b", "a"),
        "day": dt.date(2024, 1, 5),
        "at": dt.datetime(2024, 1, 5, 10, 30, tzinfo=UTC),
    }
    result = validate_content(spec, values)
    assert result == ValidationResult(errors={}, content=result.content)
    assert result.ok
    assert result.content == {
        "name": "Ada",
        "email": "ada@example.org",
        "age": 36,
        "ratio": 0.5,
        "agree": True,
        "color": "g",
        "tags": ["b", "a"],
        "day": "2024-01-05",
        "at": "2024-01-05T10:30:00+00:00",
    }
    assert list(result.content) == list(EVERYTHING)  # the schema's order
    assert type(result.content["age"]) is int and type(result.content["ratio"]) is float


def test_empty_optional_fields_are_omitted_but_booleans_are_sent() -> None:
    spec = form(EVERYTHING)
    empty = {"name": "", "email": "", "age": "", "ratio": " ", "agree": False, "color": None, "tags": ()}
    assert validate_content(spec, empty).content == {"agree": False}
    assert validate_content(spec, {}).content == {"agree": False}


@pytest.mark.parametrize(
    ("text", "expected"),
    [("3", 3), ("-3", -3), ("3.0", 3.0), ("3e2", 300.0), ("0.1", 0.1), (4, 4), (4.0, 4.0)],
)
def test_number_is_int_only_for_integral_text_without_point_or_exponent(
    text: object, expected: float
) -> None:
    content = build_content(form({"n": {"type": "number"}}), {"n": text})
    assert content == {"n": expected}
    assert type(content["n"]) is type(expected)


@pytest.mark.parametrize(("text", "expected"), [("3", 3), ("3.0", 3), ("1e3", 1000), (7.0, 7), ("-0", 0)])
def test_integer_is_always_int(text: object, expected: int) -> None:
    content = build_content(form({"n": {"type": "integer"}}), {"n": text})
    assert content == {"n": expected} and type(content["n"]) is int


def test_untouched_defaults_are_sent() -> None:
    spec = form(
        {
            "name": {"type": "string", "default": "Ada"},
            "age": {"type": "integer", "default": 36},
            "ratio": {"type": "number", "default": 0.5},
            "agree": {"type": "boolean", "default": True},
            "color": {"type": "string", "enum": ["r", "g"], "default": "g"},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "default": ["b"]},
            "day": {"type": "string", "format": "date", "default": "2024-01-05"},
            "at": {"type": "string", "format": "date-time", "default": "2024-01-05T10:00:00Z"},
        }
    )
    expected = {
        "name": "Ada",
        "age": 36,
        "ratio": 0.5,
        "agree": True,
        "color": "g",
        "tags": ["b"],
        "day": "2024-01-05",
        "at": "2024-01-05T10:00:00+00:00",
    }
    assert validate_content(spec, {}).content == expected


def test_cleared_defaults_are_omitted_except_multi() -> None:
    spec = form(
        {
            "name": {"type": "string", "default": "Ada"},
            "age": {"type": "integer", "default": 36},
            "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "default": ["b"]},
            "other": {"type": "array", "items": {"enum": ["a", "b"]}},
        }
    )
    # The person cleared a multi-select the server pre-filled: [] tells the server so.
    assert build_content(spec, {"name": "", "age": "", "tags": [], "other": []}) == {"tags": []}


def test_required_empty_multi_is_sent_as_empty_list() -> None:
    spec = form({"tags": {"type": "array", "items": {"enum": ["a"]}}}, required=["tags"])
    assert validate_content(spec, {"tags": []}).content == {"tags": []}


def test_date_time_text_is_sent_as_typed() -> None:
    spec = form({"at": {"type": "string", "format": "date-time"}})
    assert build_content(spec, {"at": " 2024-01-05T10:00:00.5-05:30 "}) == {
        "at": "2024-01-05T10:00:00.5-05:30"
    }


def test_text_is_sent_as_typed() -> None:
    spec = form({"t": {"type": "string"}})
    assert build_content(spec, {"t": "  spaced  "}) == {"t": "  spaced  "}


def test_unknown_value_keys_are_ignored() -> None:
    spec = form({"t": {"type": "string"}})
    assert build_content(spec, {"t": "x", "injected": "y"}) == {"t": "x"}


def test_multi_sends_values_not_titles_and_drops_repeats() -> None:
    spec = form({"tags": EVERYTHING["tags"]})
    assert build_content(spec, {"tags": ["a", "b", "a"]}) == {"tags": ["a", "b"]}


def test_errors_block_content() -> None:
    spec = form(
        {"age": {"type": "integer", "maximum": 10}, "mail": {"type": "string", "format": "email"}}, ["mail"]
    )
    result = validate_content(spec, {"age": "11", "mail": ""})
    assert not result.ok
    assert result.content is None
    assert dict(result.errors) == {"age": "must be at most 10", "mail": "required"}


def test_build_content_refuses_unconvertible_values_naming_only_the_field() -> None:
    spec = form({"age": {"type": "integer"}})
    with pytest.raises(ValueError, match="field 'age': must be a whole number") as info:
        build_content(spec, {"age": "SECRET"})
    assert "SECRET" not in str(info.value)


def test_pure_confirmation_content_is_empty() -> None:
    result = validate_content(form({}), {})
    assert result.ok and result.content == {}


def test_result_repr_leaves_content_out() -> None:
    result = validate_content(form({"t": {"type": "string"}}), {"t": "private words"})
    assert "private words" not in repr(result)


def test_cleared_multi_default_is_omitted_when_min_items_forbids_empty() -> None:
    # [] would break minItems, and the field is optional: leaving it out is the valid way to say "nothing".
    spec = form({"tags": {"type": "array", "items": {"enum": ["a", "b"]}, "minItems": 1, "default": ["a"]}})
    result = validate_content(spec, {"tags": []})
    assert result.ok and result.content == {}
    assert validate_content(spec, {"tags": ["b"]}).content == {"tags": ["b"]}


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    ("prop", "value"),
    [
        ({"type": "number"}, "1" * 200_000 + "x"),
        ({"type": "integer"}, "1" * 200_000 + ".5x"),
        ({"type": "number"}, "." + "1" * 200_000 + "e"),
        ({"type": "string", "format": "email"}, "a" * 200_000 + "@b.c"),
        ({"type": "string", "format": "email"}, "a@" + "b." * 100_000),
        ({"type": "string", "format": "uri"}, "http://" + "a" * 200_000 + " b"),
        ({"type": "string", "format": "uri"}, "a" * 200_000),
        ({"type": "string", "format": "date"}, "2" * 200_000),
        ({"type": "string", "format": "date-time"}, "2024-01-05T10:00:00." + "1" * 200_000),
        ({"type": "string", "maxLength": 3}, "x" * 200_000),
    ],
)
def test_our_own_checks_stay_fast_on_huge_input(prop: dict[str, Any], value: str) -> None:
    # Finishing is the proof: a quadratic check would take minutes on these.
    assert validate_field(field(prop), value) is not None
