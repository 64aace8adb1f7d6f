"""Which spellings of a typed value the redaction covers (#33), as docs/privacy.md lists them.

Each covered spelling is redacted from a server's error and from the `mcp_widgets` log (a raw JSON-RPC server
quotes the answer it got that way); each spelling docs/privacy.md calls not covered is shown not to be, so the
list stays honest.
"""

from __future__ import annotations

import base64
import html
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
    with caplog.at_level(logging.INFO, logger="mcp_widgets"), connect_sync(
        RAW, name="spellings", handler=answers, mode="legacy"
    ) as srv:
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
