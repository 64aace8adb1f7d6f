"""Hypothesis strategies: hostile strings, requested schemas (valid and not), and server scripts."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from tests.servers.hostile import ECHOES

PIECES = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<b>bold</b> &amp; &lt;",
    "$5 and $10",
    "$$\\href{javascript:alert(1)}{x}$$",
    "\\style{color:red}{x}",
    "\x1b[31mred\x1b[0m\x1b]0;title\x07",
    "\x1b[2J\x1b[H",
    "\u202eevil\u202c",
    "\u2066iso\u2069\u200f",
    "zero\u200bwidth\u200d\ufeff",
    "\r\noverwrite\r",
    "\x00nul\x7f",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 👩‍👩‍👧 ﷽",
    "{{template}} ${x} %s %(name)s",
    "[redacted]",
)

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=40)
"""Any text JSON can carry (no lone surrogates)."""

HUGE = st.builds(lambda piece, n: piece * n, st.sampled_from((*PIECES, "a")), st.integers(2_000, 20_000))


def hostile_text(huge: bool = True) -> st.SearchStrategy[str]:
    """Markup, LaTeX, ANSI, bidi, zero-width, plain random text, and (rarely) something huge."""
    part = st.one_of(st.sampled_from(PIECES), TEXT)
    joined = st.lists(part, max_size=4).map("".join)
    return st.one_of(joined, HUGE) if huge else joined


_STRING_EXTRAS: dict[str, st.SearchStrategy[Any]] = {
    "title": hostile_text(huge=False),
    "description": hostile_text(),
    "minLength": st.integers(0, 3),
    "maxLength": st.integers(0, 80),
    "pattern": st.sampled_from(["^[a-z-0-9]+$", "(a+)+$", "[", "^.*$", "(?P<x>", "\\d{2,}"]),
    "format": st.sampled_from(["email", "uri", "date", "date-time", "password", "nonsense"]),
    "default": st.one_of(hostile_text(huge=False), st.integers(), st.none()),
}


def _prop_of(kind: str) -> st.SearchStrategy[dict[str, Any]]:
    base = {"type": st.just(kind)}
    if kind == "string":
        return st.fixed_dictionaries(base, optional=_STRING_EXTRAS)
    if kind in ("integer", "number"):
        nums = st.one_of(st.integers(-(10**6), 10**6), st.floats(allow_nan=False, allow_infinity=False))
        extras = {"minimum": nums, "maximum": nums, "default": nums, "title": hostile_text(huge=False)}
        return st.fixed_dictionaries(base, optional=extras)
    if kind == "boolean":
        return st.fixed_dictionaries(
            base, optional={"default": st.booleans(), "title": hostile_text(huge=False)}
        )
    if kind == "enum":
        choices = st.lists(hostile_text(huge=False), min_size=0, max_size=12)
        return st.one_of(
            choices.map(lambda c: {"type": "string", "enum": c}),
            choices.map(lambda c: {"type": "string", "oneOf": [{"const": v, "title": v[::-1]} for v in c]}),
            choices.map(lambda c: {"type": "string", "enum": c, "enumNames": c[:-1]}),
        )
    if kind == "multi":
        choices = st.lists(hostile_text(huge=False), min_size=0, max_size=12)
        return st.builds(
            lambda c, lo, hi: {
                "type": "array",
                "items": {"type": "string", "enum": c},
                "minItems": lo,
                "maxItems": hi,
            },
            choices,
            st.integers(0, 3),
            st.integers(0, 12),
        )
    # What the spec forbids: nested objects, plain arrays, junk.
    return st.sampled_from(
        [
            {"type": "object", "properties": {"x": {"type": "string"}}},
            {"type": "array", "items": {"type": "string"}},
            {"type": ["string", "null"]},
            {"type": "null"},
            {},
            {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "not a schema",
            None,
        ]
    )


KINDS = ("string", "string", "integer", "number", "boolean", "enum", "multi", "bad")

prop = st.sampled_from(KINDS).flatmap(_prop_of)
valid_prop = st.sampled_from(KINDS[:-1]).flatmap(_prop_of)


@st.composite
def object_schema(draw: st.DrawFn, valid: bool = False) -> dict[str, Any]:
    names = draw(st.lists(hostile_text(huge=False).filter(bool), max_size=6, unique=True))
    props = {name: draw(valid_prop if valid else prop) for name in names}
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if names:
        schema["required"] = draw(st.lists(st.sampled_from(names), unique=True))
    return schema


@st.composite
def answerable_schema(draw: st.DrawFn) -> dict[str, Any]:
    """A valid schema with plain text fields (and maybe an integer) a typist can fill and accept."""
    names = draw(st.lists(hostile_text(huge=False).filter(bool), min_size=1, max_size=4, unique=True))
    titled = st.fixed_dictionaries(
        {"type": st.just("string")},
        optional={
            "title": hostile_text(huge=False),
            "description": hostile_text(),
            "default": hostile_text(False),
        },
    )
    props = {name: draw(titled) for name in names}
    if draw(st.booleans()):
        props["n\u200b"] = {"type": "integer", "title": draw(hostile_text(huge=False))}
    return {"type": "object", "properties": props, "required": names[:1]}


JUNK = st.recursive(
    st.none() | st.booleans() | st.integers() | hostile_text(huge=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(hostile_text(huge=False), inner, max_size=3),
    max_leaves=8,
)

schema = st.one_of(
    answerable_schema(),
    answerable_schema(),
    object_schema(valid=True),
    object_schema(),
    st.sampled_from(
        [
            {"type": "string"},
            {"type": "object", "oneOf": [{}]},
            {"type": "object", "properties": {}, "allOf": [{"type": "object"}]},
            {"type": "object", "properties": "nope"},
            {"type": "object", "properties": {}},
        ]
    ),
    JUNK,
)
"""A requested schema: valid per the spec, broken in one property, or broken at the top."""

echo = st.sampled_from(ECHOES)

step = st.one_of(
    st.fixed_dictionaries(
        {"do": st.just("progress"), "text": hostile_text(), "echo": echo},
        optional={"progress": st.integers(0, 5), "total": st.one_of(st.none(), st.integers(0, 5))},
    ),
    st.fixed_dictionaries(
        {
            "do": st.just("log"),
            "text": hostile_text(),
            "echo": echo,
            "level": st.sampled_from(["debug", "info", "warning", "error", "emergency"]),
            "related": st.booleans(),
        },
    ),
)

end = st.fixed_dictionaries(
    {"kind": st.sampled_from(["return", "error", "raise"]), "text": hostile_text(), "echo": echo},
    optional={"data": st.booleans(), "code": st.sampled_from([-32602, -32603, -32000, 0, 42])},
)


@st.composite
def script(draw: st.DrawFn, max_asks: int = 3, max_steps: int = 6) -> dict[str, Any]:
    """What the hostile `MCPServer` does in one call."""
    asks = draw(
        st.lists(st.fixed_dictionaries({"message": hostile_text(), "schema": schema}), max_size=max_asks)
    )
    return {"asks": asks, "steps": draw(st.lists(step, max_size=max_steps)), "end": draw(end)}


# --------------------------------------------------------------------------- raw JSON-RPC event orders

rid = st.sampled_from([1, 2, "q", 0])
"""Request ids for the raw server's questions: few, so that duplicates are common."""

MAX_FLOOD = 8
# Moderate until the per-call bound lands (`connect(max_questions=…)`, 100 per call / 20 per round).

_question = {"message": hostile_text(), "schema": st.one_of(answerable_schema(), schema)}

HOSTILE_URLS = (
    "https://example.com/consent?x=1",
    "https://login.example.com/authorize#frag",
    "http://example.com/not-tls",
    "javascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "file:///etc/passwd",
    "https://user:pass@example.com/",
    "https://xn--80ak6aa92e.com/",  # an IDN that spells "apple" in Cyrillic
    "https://аpple.com/",
    "https://example.com/\u202egnp.exe",
    "https://127.0.0.1:8080/",
    "https://example.com/" + "a" * 5000,
    "not a url",
    "",
)
eid = st.sampled_from(["e1", "e2", ""])
"""elicitationIds: few, so that a completion often names an open card (or one that ended)."""
_url_question = {
    "message": hostile_text(),
    "url": st.one_of(
        st.sampled_from(HOSTILE_URLS), hostile_text(huge=False).map(lambda t: "https://x.test/" + t)
    ),
    "elicitationId": eid,
}
raw_op = st.one_of(
    st.fixed_dictionaries({"op": st.just("elicit"), "id": rid, **_question}),
    st.fixed_dictionaries({"op": st.just("await"), "id": rid, "timeout": st.just(0.5)}),
    st.fixed_dictionaries({"op": st.just("cancel"), "id": rid, "text": hostile_text(huge=False)}),
    st.fixed_dictionaries({"op": st.sampled_from(["progress", "log"]), "text": hostile_text(), "echo": echo}),
    st.fixed_dictionaries({"op": st.sampled_from(["stray", "garbage"]), "text": hostile_text(huge=False)}),
    st.fixed_dictionaries({"op": st.just("sleep"), "s": st.sampled_from([0.0, 0.01, 0.1])}),
    st.fixed_dictionaries({"op": st.just("flood"), "n": st.integers(1, MAX_FLOOD), **_question}),
    st.fixed_dictionaries({"op": st.just("elicit_url"), "id": rid, **_url_question}),
    st.fixed_dictionaries({"op": st.just("complete"), "elicitationId": eid}),
)
raw_end = st.one_of(
    st.fixed_dictionaries(
        {"op": st.sampled_from(["result", "error"]), "text": hostile_text(), "echo": echo},
        optional={"code": st.sampled_from([-32602, -32000, -32603, 1])},
    ),
    st.just({"op": "exit"}),
)
late = st.lists(st.one_of(st.just({"op": "again"}), raw_op), max_size=3)


@st.composite
def raw_script(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Events before the call's end, its end (a result, an error, or the server exiting), and late ones."""
    return [*draw(st.lists(raw_op, max_size=6)), draw(raw_end), *draw(late)]
