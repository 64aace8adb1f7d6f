"""`core.completion_code`: which call and which argument string the cursor is in, from the text before it
(what Tab in a code cell completes); and how a value is written back into that string. It never raises."""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcp_widgets.core.completion_code import METHODS, CodeArgument, code_argument, literal_content

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def found(text: str) -> CodeArgument:
    target = code_argument(text)
    assert target is not None, text
    return target


@pytest.mark.parametrize("method", sorted(METHODS))
def test_each_call_positional_form(method: str) -> None:
    target = found(f'srv.{method}("greet", {{"name": "Al')
    assert (target.receiver, target.method, target.kind) == ("srv", method, METHODS[method])
    assert (target.name, target.argument, target.value, target.fragment) == ("greet", "name", "Al", "Al")
    assert target.quote == '"' and not target.raw and target.context == {}


def test_a_dotted_path_of_names_is_the_receiver() -> None:
    """`team.srv.get_prompt(` (a server kept in a module, a namespace, an object): the path is looked up
    attribute by attribute, never evaluated (kernel/completion.py)."""
    assert found('team.srv.get_prompt("greet", {"name": "Al').receiver == "team.srv"
    target = found('x = await a.b . srv.read_template("w://{a}", {"a": "x')
    assert (target.receiver, target.kind, target.value) == ("a.b.srv", "template", "x")
    shown = repr(found('team.srv.get_prompt("g", {"n": "secret-typed'))
    assert "team.srv.get_prompt" in shown and "secret" not in shown


def test_keyword_forms_and_the_other_literal_entries_as_context() -> None:
    target = found('x = await srv.get_prompt(name="trip", arguments={"city": "Oslo", "n": 3, "m": \'Ju')
    assert (target.kind, target.name, target.argument, target.value, target.quote) == (
        "prompt",
        "trip",
        "m",
        "Ju",
        "'",
    )
    assert target.context == {"city": "Oslo", "n": "3"}
    code = 'srv.read_template_sync(template="weather://{city}/{day}", variables={"city": "Paris", "day": "'
    target = found(code)
    assert (target.kind, target.name, target.argument) == ("template", "weather://{city}/{day}", "day")
    assert target.value == target.fragment == ""
    assert target.context == {"city": "Paris"}
    target = found('srv.read_template("w://{a}", output=out, variables={"a": "x')
    assert target.name == "w://{a}" and target.value == "x"


def test_a_dict_over_several_lines_with_comments_and_nested_values() -> None:
    code = (
        'rows = [1, (2, 3)]  # "not this {"\n'
        "result = srv.get_prompt_sync(\n"
        '    "trip",\n'
        "    {\n"
        '        "city": "Os" "lo",  # implicit concatenation: no plain literal, not context\n'
        '        "note": f"{rows}",  # an f-string is code: not context\n'
        '        "tags": ["a", {"b": "c"}],\n'
        '        "day": "mon", "month": "Ju'
    )
    target = found(code)
    assert (target.name, target.argument, target.value) == ("trip", "month", "Ju")
    assert target.context == {"day": "mon"}


def test_entries_after_the_cursor_are_context_too() -> None:
    before = 'srv.get_prompt("trip", {"city": "Oslo", "month": "Ju'
    target = found_around(before, 'n", "note": \'x\', "n": [1, 2], "day": 3}, output=o)\nz = {"q": "r"}')
    assert target.value == "Ju" and target.context == {"city": "Oslo", "note": "x", "day": "3"}
    assert found_around(before, '"}').context == {"city": "Oslo"}
    assert found_around(before, ', "note": "x"').context == {"city": "Oslo"}  # the string goes on: no code
    assert found_around(before, '\\"", "note": "x"').context == {"city": "Oslo", "note": "x"}
    assert found_around(before, '", "month": "May"}').context == {"city": "Oslo"}  # not its own argument


def found_around(before: str, after: str) -> CodeArgument:
    target = code_argument(before, after)
    assert target is not None, before
    return target


def test_a_long_cell_is_read_from_its_last_top_level_statement() -> None:
    import time

    earlier = 'rows = srv.get_prompt("a", {"b": "c"})  # a { and a " in a comment\n' * 2000
    code = earlier + 'def f():\n    return srv.get_prompt_sync(\n        "greet",\n{"team": "x",\n"name": "Al'
    started = time.perf_counter()
    target = found(code)
    assert time.perf_counter() - started < 0.05 and len(code) > 100_000
    assert (target.name, target.argument, target.value) == ("greet", "name", "Al")
    assert target.context == {"team": "x"}


def test_escapes_are_decoded_and_raw_strings_kept() -> None:
    target = found('srv.get_prompt("g", {"who": "caf\\u00e9 \\"A')
    assert target.value == 'café "A' and target.fragment == 'caf\\u00e9 \\"A'
    target = found('srv.get_prompt("g", {"path": r"C:\\Users')
    assert target.raw and target.value == target.fragment == "C:\\Users"


@pytest.mark.parametrize(
    "text",
    [
        'srv.get_prompt("greet", {"name": "Al"})',  # the string is closed: the cursor is not in it
        'srv.get_prompt("greet", {"name": Al',  # not in a string
        'srv.get_prompt("greet", {"name": "Al", "x": 1',  # in no string
        'srv.get_prompt("greet", {"na',  # a key, not a value
        'srv.get_prompt("greet", ["Al',  # no dict
        'srv.get_prompt("greet", {"name": ["Al',  # in a list inside the dict
        'srv.get_prompt("greet", {"name": {"x": "Al',  # a dict inside the dict
        'srv.get_prompt(greet, {"name": "Al',  # the prompt's name is no literal
        'srv.get_prompt({"name": "Al',  # the dict is no second argument
        'srv.get_prompt("a", "b", {"name": "Al',  # nor here
        'srv.get_prompt("a", output={"name": "Al',  # another keyword
        'srv.get_prompt(arguments={"name": "Al',  # no name given before the dict
        'srv.call_tool("greet", {"name": "Al',  # not a prompt or template call
        'f().srv.get_prompt("greet", {"name": "Al',  # a path must start at a name: not after a call
        'x[0].srv.get_prompt("greet", {"name": "Al',  # nor after a subscript
        '.srv.get_prompt("greet", {"name": "Al',  # nor at a dot
        'a..srv.get_prompt("greet", {"name": "Al',  # nor two dots
        'srv().get_prompt("greet", {"name": "Al',  # not even a call
        'srv.get_prompt("greet", {"name": f"Al',  # an f-string
        'srv.get_prompt("greet", {"name": b"Al',  # bytes
        'srv.get_prompt("greet", {"name": """Al',  # triple-quoted
        'srv.get_prompt("greet", {"name": "Al\\',  # a lone backslash: no string yet
        'srv.get_prompt("greet", {"name": r"Al\\',  # nor in a raw string
        'srv.get_prompt("greet", {"na" "me": "Al',  # the key is no plain literal
        'srv.get_prompt("greet", {1: "Al',  # the key is no text
        'srv.get_prompt("greet", {**base, "name": "Al"}) # "',  # in a comment
        'srv.get_prompt(name == "greet", arguments={"name": "Al',  # a comparison, not a keyword
        "",
    ],
)
def test_no_target_elsewhere(text: str) -> None:
    assert code_argument(text) is None


def test_the_repr_keeps_out_what_is_typed() -> None:
    target = found('srv.get_prompt("g", {"pin": "1234", "name": "Secret-Al')
    assert "Secret" not in repr(target) and "1234" not in repr(target) and "'name'" in repr(target)


@SETTINGS
@given(st.text(max_size=40), st.sampled_from(['"', "'"]))
def test_a_value_written_back_reads_as_itself(value: str, quote: str) -> None:
    target = found(f"srv.get_prompt('g', {{'x': {quote}")
    content = literal_content(value, target)
    assert content is not None and "\n" not in content
    assert ast.literal_eval(quote + content + quote) == value
    raw = found(f"srv.get_prompt('g', {{'x': r{quote}")
    written = literal_content(value, raw)
    if written is not None:
        assert ast.literal_eval("r" + quote + written + quote) == value


# Pieces of the code looked for, in any order: what an unfinished cell is made of.
PIECES = [
    "srv",
    ".",
    "get_prompt",
    "read_template_sync",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "=",
    " ",
    "\n",
    "#",
    "\\",
    '"',
    "'",
    '"""',
    "r",
    "b",
    "f",
    "1e-5",
    '"n"',
    "'k'",
    "arguments",
    "name",
    "**",
    "x",
]
code_pieces = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@SETTINGS
@given(st.one_of(st.text(max_size=80), code_pieces), st.one_of(st.text(max_size=20), code_pieces))
def test_any_text_is_read_without_raising(text: str, after: str) -> None:
    target = code_argument(text, after)
    if target is not None:
        assert text.endswith(target.fragment) and target.method in METHODS
        assert isinstance(target.value, str) and all(isinstance(v, str) for v in target.context.values())


@SETTINGS
@given(
    st.sampled_from(sorted(METHODS)),
    st.text(st.characters(exclude_characters='\\"\n\r', codec="utf-8"), max_size=10),
    st.dictionaries(
        st.text(st.characters(exclude_characters="\\'\n\r", codec="utf-8"), max_size=6),
        st.text(st.characters(exclude_characters="\n\r"), max_size=6),
        max_size=3,
    ),
)
def test_written_code_is_found_with_its_context(method: str, typed: str, others: dict[str, str]) -> None:
    entries = "".join(f"{key!r}: {value!r}, " for key, value in others.items() if key != "arg")
    target = found(f'srv.{method}("n", {{{entries}"arg": "{typed}')
    assert (target.argument, target.value, target.name) == ("arg", typed, "n")
    assert target.context == {k: v for k, v in others.items() if k != "arg"}
