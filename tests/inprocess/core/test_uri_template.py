"""RFC 6570 templates as a form and `read_template` use them: variables, which are required, and each
operator's percent-encoding (the RFC's own examples, section 3.2, plus what a person may type)."""

from __future__ import annotations

import pytest

from mcp_widgets.core.prompt_args import prompt_schema
from mcp_widgets.core.uri_template import TemplateError, parse_template
from tests.inprocess.work import linear
from tests.servers.wide import template_text

RFC = {
    "var": "value",
    "hello": "Hello World!",
    "path": "/foo/bar",
    "empty": "",
    "x": "1024",
    "y": "768",
    "list": ["red", "green", "blue"],
}


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{var}", "value"),
        ("{hello}", "Hello%20World%21"),
        ("{+hello}", "Hello%20World!"),
        ("{+path}/here", "/foo/bar/here"),
        ("{#hello}", "#Hello%20World!"),
        ("{#path,x}/here", "#/foo/bar,1024/here"),
        ("X{.var}", "X.value"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{;x,y}", ";x=1024;y=768"),
        ("{?x,y}", "?x=1024&y=768"),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{/list*}", "/red/green/blue"),
        ("{?list*}", "?list=red&list=green&list=blue"),
        ("{var:3}", "val"),
    ],
)
def test_the_rfc_examples(template: str, expected: str) -> None:
    parsed = parse_template(template)
    assert parsed.expand({k: v for k, v in RFC.items() if k in parsed.names}) == expected


TYPED = 'a b/c?d#e%20é{x}<>"'


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        # simple and path-like operators encode every reserved character
        ("{v}", "a%20b%2Fc%3Fd%23e%2520%C3%A9%7Bx%7D%3C%3E%22"),
        ("{/v}", "/a%20b%2Fc%3Fd%23e%2520%C3%A9%7Bx%7D%3C%3E%22"),
        ("{?v}", "?v=a%20b%2Fc%3Fd%23e%2520%C3%A9%7Bx%7D%3C%3E%22"),
        # reserved and fragment keep reserved characters and %-triplets, still encode a space, é, { } < > "
        ("{+v}", "a%20b/c?d#e%20%C3%A9%7Bx%7D%3C%3E%22"),
        ("{#v}", "#a%20b/c?d#e%20%C3%A9%7Bx%7D%3C%3E%22"),
    ],
)
def test_each_operator_encodes_what_a_person_types_as_the_rfc_says(template: str, expected: str) -> None:
    assert parse_template(template).expand({"v": TYPED}) == expected


def test_exploded_items_are_encoded_each() -> None:
    assert parse_template("files://{/path*}").expand({"path": ["a/b", "c d"]}) == "files:///a%2Fb/c%20d"


def test_required_and_optional_variables_and_the_form_schema() -> None:
    parsed = parse_template("notes://{topic}/{+rest}{/seg*}{?lang,q}{#part}")
    assert parsed.names == ("topic", "rest", "seg", "lang", "q", "part")
    schema = parsed.schema()
    assert schema["required"] == ["topic", "rest", "seg"]
    assert schema["properties"]["topic"] == {"type": "string", "title": "topic"}
    assert schema["properties"]["seg"]["type"] == "array"
    assert schema["properties"]["lang"]["description"] == "A query parameter."
    assert "kept as typed" in schema["properties"]["rest"]["description"]
    # a variable used both in the path and the query must be given
    assert parse_template("x://{id}{?id}").schema()["required"] == ["id"]
    assert parse_template("x://{id:3}").variables[0].description == "Only its first 3 characters are used."


def test_missing_and_unknown_variables_are_named_never_their_values() -> None:
    parsed = parse_template("notes://{topic}/{+rest}{?lang}")
    with pytest.raises(TemplateError, match=r"needs a value for 'topic', 'rest'$"):
        parsed.expand({"lang": "secret-value"})
    with pytest.raises(TemplateError, match=r"needs a value for 'rest'$"):
        parsed.expand({"topic": "secret-value", "rest": ""})
    with pytest.raises(TemplateError) as info:
        parsed.expand({"topic": "secret-value", "rest": "r", "tpoic": "secret-value"})
    assert "'tpoic'" in str(info.value) and "secret-value" not in str(info.value)
    with pytest.raises(TemplateError, match="takes text") as bad:
        parsed.expand({"topic": object(), "rest": "r"})
    assert "secret" not in str(bad.value)
    assert parsed.expand({"topic": 7, "rest": "r", "lang": ""}) == "notes://7/r"  # "" leaves a query out


@pytest.mark.parametrize("text", ["demo://{x", "demo://x}", "demo://{!x}", "demo://{x y}"])
def test_what_is_no_template_is_refused(text: str) -> None:
    with pytest.raises(TemplateError, match="is not an RFC 6570 URI template"):
        parse_template(text)


def test_expanding_10000_values_is_linear_work() -> None:
    # Each name given was looked up in the names rebuilt for it: 10,000 values took 10^8 steps (issue 48).
    def expand(n: int) -> None:
        parsed = parse_template(template_text(n))
        assert parsed.expand({f"v{i}": "x" for i in range(n)}) == "wide://" + "x" * n

    few, many = linear(expand)
    assert many > 5 * few  # it was counted


def test_every_template_error_is_clipped() -> None:
    # 10,000 variables (a 70 KB template): a message quoted the template and every name, 140 KB
    long_name = "n" * 100_000
    parsed = parse_template(template_text(10_000) + "{" + long_name + "}")
    messages = []
    for values in ({"nope": "x"}, {}):
        with pytest.raises(TemplateError) as info:
            parsed.expand(values)
        messages.append(str(info.value))
    for value in (True, object()):
        with pytest.raises(TemplateError) as info:
            parse_template("wide://{" + long_name + "}").expand({long_name: value})
        messages.append(str(info.value))
    with pytest.raises(TemplateError) as info:
        parse_template("wide://{" + "x" * 100_000)
    messages.append(str(info.value))
    with pytest.raises(TemplateError) as info:
        parse_template("wide://{x:3}").expand({"x": ["a", "b"]})
    messages.append(str(info.value))
    for message in messages:
        assert len(message) < 1_000 and "\n" not in message, message[:2_000]
    assert "more characters)" in messages[0] and "'nope'" in messages[0]
    assert "needs a value for 'v0', 'v1'," in messages[1] and "more characters)" in messages[1]
    assert "takes text, not True or False" in messages[2] and "takes text (or a list" in messages[3]


class Arg:
    def __init__(self, name: object, required: object = None, description: object = None) -> None:
        self.name, self.required, self.description = name, required, description
        self.title = None


def test_prompt_arguments_become_a_schema_of_text() -> None:
    schema = prompt_schema(
        [Arg("city", True, "Name of the city"), Arg("state"), Arg("city"), Arg(3), Arg("")]
    )
    assert schema == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "Name of the city"},
            "state": {"type": "string"},
        },
        "required": ["city"],
    }
    assert prompt_schema(None) == {"type": "object", "properties": {}, "required": []}
