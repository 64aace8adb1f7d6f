"""Which spellings of a typed value the redaction covers (#33), as docs/privacy.md lists them.

Each covered spelling is redacted from a server's error and from the `mcp_widgets` log (a raw JSON-RPC server
quotes the answer it got that way); each spelling docs/privacy.md calls not covered is shown not to be, so the
list stays honest.
"""

from __future__ import annotations

import base64
import html
import json
import logging
import sys
import unicodedata
from collections.abc import Callable
from urllib.parse import quote

import pytest

from mcp_widgets import ServerError, connect_sync, handlers
from mcp_widgets.core.redaction import REDACTED, typed_pattern
from tests.inprocess.client.test_secrets import everything_in
from tests.servers import SERVERS

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(120)]

RAW = [sys.executable, str(SERVERS / "rawrpc.py")]
VALUE = "Zoé-Quinn48"


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if 0x21 <= ord(c) <= 0x7E else c for c in text)


COVERED: dict[str, Callable[[str], str]] = {
    "decimal entities": lambda v: "".join(f"&#{ord(c)};" for c in v),
    "hex entities": lambda v: "".join(f"&#x{ord(c):x};" for c in v),
    "named entities": lambda v: html.escape(v).replace("é", "&eacute;"),
    "base64": lambda v: base64.b64encode(v.encode()).decode(),
    "base64 url-safe unpadded": lambda v: base64.urlsafe_b64encode(v.encode()).decode().rstrip("="),
    "double URL-encoding": lambda v: quote(quote(v, safe=""), safe=""),
    "decomposed": lambda v: unicodedata.normalize("NFD", v),
    "fullwidth": _fullwidth,
    "zero-width space inside": lambda v: v[:3] + "\u200b" + v[3:],
    "soft hyphen and joiner inside": lambda v: v[:2] + "\u00ad" + v[2:6] + "\u2060" + v[6:],
    "upper case, escaped in JSON": lambda v: v.upper().replace("É", "\\u00c9"),
}
NOT_COVERED: dict[str, Callable[[str], str]] = {
    "inside a longer base64 text": lambda v: base64.b64encode(f"name={v}".encode()).decode(),
    "hex bytes": lambda v: v.encode().hex(),
}


@pytest.mark.parametrize("how", COVERED)
def test_each_covered_spelling_is_redacted(how: str) -> None:
    typed = typed_pattern([VALUE])
    assert typed is not None
    spelled = COVERED[how](VALUE)
    assert spelled != VALUE or how == "named entities"
    assert typed.sub(REDACTED, f"you said {spelled}!") == f"you said {REDACTED}!"


@pytest.mark.parametrize("how", NOT_COVERED)
def test_each_spelling_the_readme_calls_not_covered_is_not(how: str) -> None:
    typed = typed_pattern([VALUE])
    assert typed is not None
    text = f"you said {NOT_COVERED[how](VALUE)}"
    assert typed.sub(REDACTED, text) == text  # if this starts to fail, move it to COVERED and docs/privacy.md


def test_a_value_split_across_two_messages_is_not_redacted() -> None:
    # Each part alone is not the value: docs/privacy.md says so.
    typed = typed_pattern([VALUE])
    assert typed is not None
    assert [typed.sub(REDACTED, part) for part in (VALUE[:5], VALUE[5:])] == [VALUE[:5], VALUE[5:]]


def test_short_words_are_not_cut_out_of_messages() -> None:
    typed = typed_pattern(["an"])
    assert typed is not None
    assert typed.sub(REDACTED, "an answer, and ＡＮ") == f"{REDACTED} answer, and {REDACTED}"


def test_covered_spellings_are_redacted_from_errors_and_the_log(caplog: pytest.LogCaptureFixture) -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    answers = handlers.scripted([{"name": VALUE}] * len(COVERED))
    found: dict[str, list[str]] = {}
    with (
        caplog.at_level(logging.INFO, logger="mcp_widgets"),
        connect_sync(RAW, name="spellings", handler=answers, mode="legacy") as srv,
    ):
        for i, (how, spell) in enumerate(COVERED.items()):
            spelled = spell(VALUE)
            ops = [
                {"op": "elicit", "id": i, "message": "Name?", "schema": schema},
                {"op": "await", "id": i},
                {"op": "log", "text": f"log: you said {spelled}"},
                {"op": "error", "text": f"error: you said {spelled}"},
            ]
            with pytest.raises(ServerError) as caught:
                srv.call_tool_sync("play", {"ops": ops})
            text = everything_in(caught.value)
            logs = [r.getMessage() for r in caplog.records if "log: you said" in r.getMessage()]
            caplog.clear()
            shown = [text, *logs]
            found[how] = [t for t in shown if spelled in t or VALUE in t or REDACTED not in t]
    assert found == {how: [] for how in COVERED}


def test_a_single_character_is_not_redacted_anywhere() -> None:
    # docs/privacy.md: a `2` would cut every count apart (the wire's copy of an echo keeps `"seats": 2` too).
    assert typed_pattern(["2", True, None]) is None
    typed = typed_pattern(["2", "Quinn"])
    assert typed is not None and typed.sub(REDACTED, '{"seats": 2, "who": "Quinn"}') == (
        f'{{"seats": 2, "who": "{REDACTED}"}}'
    )


def _note(size: int) -> str:
    """A pasted note: words that do not repeat (as a person's text), with a few accents and quotes."""
    words = [f"w{n * 7919 % 100003:x}" for n in range(size)]
    return ('Résumé: "' + " ".join(words))[:size]


LONG = _note(5_000)
LONG_COVERED: dict[str, Callable[[str], str]] = {
    "as typed, upper case": str.upper,
    "decomposed": lambda v: unicodedata.normalize("NFD", v),
    "escaped in JSON": lambda v: json.dumps(v)[1:-1],
    "escaped in JSON twice": lambda v: json.dumps(json.dumps(v)[1:-1])[1:-1],
    "URL-encoded": lambda v: quote(v, safe=""),
    "HTML-escaped": html.escape,
    "base64": lambda v: base64.b64encode(v.encode()).decode(),
    "its first 40 characters": lambda v: v[:40],
    "40 characters from its middle": lambda v: v[2_000:2_040],
}
LONG_NOT_COVERED: dict[str, Callable[[str], str]] = {
    "fullwidth": _fullwidth,
    "zero-width spaces 10 apart": lambda v: "\u200b".join(v[i : i + 10] for i in range(0, 99, 10)),
    "its first 15 characters": lambda v: v[:15],
}


@pytest.mark.parametrize("how", LONG_COVERED)
def test_a_long_value_is_redacted_in_each_literal_spelling_and_by_its_runs(how: str) -> None:
    typed = typed_pattern([LONG])
    assert typed is not None
    spelled = LONG_COVERED[how](LONG)
    assert typed.sub(REDACTED, f"you said {spelled}!") == f"you said {REDACTED}!"


@pytest.mark.parametrize("how", LONG_NOT_COVERED)
def test_a_long_value_in_a_spelling_the_docs_call_not_covered_is_not(how: str) -> None:
    typed = typed_pattern([LONG])
    assert typed is not None
    text = f"you said {LONG_NOT_COVERED[how](LONG)}"
    assert REDACTED not in typed.sub(REDACTED, text)  # if this starts to fail, say so in docs/privacy.md


def test_a_long_values_matcher_grows_with_its_length_not_faster() -> None:
    """Its index holds one piece per 16 characters of each spelling (a per-character pattern of 10,000
    characters took seconds to build); a 10 times longer value has about 10 times the pieces."""
    from mcp_widgets.core.redaction import _Pieces

    short, long = _Pieces(_note(5_000)), _Pieces(_note(50_000))
    count = [sum(len(v) for v in p.starts.values()) for p in (short, long)]
    assert count[1] <= 10.5 * count[0]
    assert count[1] <= sum(len(f) for f in long.forms) // 16 + len(long.forms)


@pytest.mark.parametrize(
    "text",
    [
        "you said QUINN-4815!",
        "you said pinquinn-4815x!",
        f"you said {base64.b64encode(b'Quinn-4815').decode()}!",
        f"you said {base64.urlsafe_b64encode(b'Quinn-4815').decode().rstrip('=')}!",
        "you said Quinn&#45;4815!",
        "you said Quinn%2D4815!",
    ],
)
def test_an_ascii_value_in_plain_ascii_text_is_found_by_its_shortcut_as_by_its_pattern(text: str) -> None:
    # A plain ASCII text (no escape) is searched by substring first: the same spans as the pattern's.
    typed = typed_pattern(["Quinn-4815", "an"])
    assert typed is not None
    assert REDACTED in typed.sub(REDACTED, text)
    plain = "an answer and AN. Quinn said 4815"
    assert typed.sub(REDACTED, plain) == f"{REDACTED} answer and {REDACTED}. Quinn said 4815"
