"""A call as one line of Python (`core.call_code`): literals that read back as the values, hostile text
escaped, masked arguments as placeholders, and nothing a server names can end the line's comment."""

from __future__ import annotations

import ast
from typing import Any

import pytest

from mcp_widgets.core.call_code import call_code, literal

VALUES: list[Any] = [
    "Oslo",
    "it's",
    'say "hi"',
    "both ' and \"",
    "line\nbreak\ttab",
    "bidi \u202egnp.exe zero\u200bwidth \x1b[31mred",
    "",
    0,
    -3,
    2.5,
    True,
    False,
    None,
    [1, "a", [None]],
    {"nested": {"k": [True]}},
]


@pytest.mark.parametrize("value", VALUES)
def test_a_literal_reads_back_as_its_value(value: Any) -> None:
    assert ast.literal_eval(literal(value)) == value


def test_what_is_not_printable_is_escaped_never_written_raw() -> None:
    written = literal("a\u202eb\u200bc\x1bd\u2028e")
    assert written == "'a\\u202eb\\u200bc\\x1bd\\u2028e'".replace("'", '"')
    assert all(ch.isprintable() for ch in written)


def test_a_call_with_arguments_and_without() -> None:
    assert call_code("srv", "call_tool", "weather", {"city": "Oslo", "days": 3}) == (
        'await srv.call_tool("weather", {"city": "Oslo", "days": 3})'
    )
    assert call_code("github", "get_prompt", "greet") == 'await github.get_prompt("greet")'
    assert call_code("srv", "call_tool", "nan", {"x": float("nan")}).endswith('{"x": float("nan")})')


def test_a_hidden_argument_is_a_placeholder_and_its_comment_names_it() -> None:
    code = call_code("srv", "call_tool", "login", {"user": "ada", "password": "s3cret"}, {"password"})
    assert code == (
        'await srv.call_tool("login", {"user": "ada", "password": ...})  # fill in "password": not copied'
    )
    assert "s3cret" not in code


def test_a_hostile_name_cannot_leave_the_comment_or_the_string() -> None:
    """A server's argument name with a line break and code after it: still one line, one statement."""
    name = 'x\nimport os; os.system("rm -rf ~")  #'
    code = call_code("srv", "call_tool", 'tool"); evil(("', {name: "v", "token": "t"}, {name, "token"})
    assert "\n" not in code
    tree = ast.parse(f"async def f():\n    {code}")
    (statement,) = tree.body[0].body  # type: ignore[attr-defined]
    call = statement.value.value
    assert isinstance(call, ast.Call) and ast.unparse(call.func) == "srv.call_tool"
    assert ast.literal_eval(call.args[0]) == 'tool"); evil(("'
