"""Where Tab is pressed in a code cell: inside an argument string of a prompt or template call?

`code_argument(before)` reads the text before the cursor (stdlib only, nothing evaluated) and finds whether
the cursor is inside the value string of a dict literal given to `srv.get_prompt("name", {"arg": "par` or
`srv.read_template("tmpl", {"var": "par` (their `_sync` and `_background` forms, and the keyword forms
`name=`, `arguments=`, `template=`, `variables=`), where `srv` is a name or a dotted path of names
(`team.srv`). It returns a `CodeArgument`: the name, the call, the argument, the value typed so far, the raw
text to replace (from after the opening quote to the cursor) and the other literal entries of the same dict
as context; otherwise None. It never raises: any text is read with a small scanner of its own (tokens,
brackets, strings), not with `tokenize`, which differs between Python releases on unfinished code.

`literal_content(value, code)` is how a server's value is written inside that string (escaped for its
quote; None where a raw string cannot hold it).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["METHODS", "CodeArgument", "code_argument", "literal_content"]

METHODS: dict[str, Literal["prompt", "template"]] = {
    "get_prompt": "prompt",
    "get_prompt_sync": "prompt",
    "get_prompt_background": "prompt",
    "read_template": "template",
    "read_template_sync": "template",
    "read_template_background": "template",
}
"""The calls whose argument strings are completed, and what they name."""

_KEYWORDS = {"prompt": ("name", "arguments"), "template": ("template", "variables")}
"""Per kind: the keyword naming the prompt or template, the keyword of the dict."""

_OPERATOR_CHARS = "=<>!:+-*/%&|^@~"
_BRACKETS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = {")": "(", "]": "[", "}": "{"}


@dataclass(frozen=True)
class CodeArgument:
    """An argument string the cursor is in.

    Attributes:
        receiver: The name the call is made on (`srv`), or a dotted path of names (`team.srv`); looked up,
            never evaluated.
        method: The call (`get_prompt_sync`, ...).
        kind: "prompt" or "template".
        name: The prompt's name or the template (URI template or its name), as written.
        argument: The dict key whose value is typed.
        value: The value typed so far (escapes decoded).
        fragment: The source text from after the opening quote to the cursor (what a match replaces).
        quote: The string's quote character.
        raw: It is a raw string (`r"..."`).
        context: The other entries of the same dict whose key and value are literals (numbers as text).
    """

    receiver: str
    method: str
    kind: Literal["prompt", "template"]
    name: str
    argument: str
    value: str
    fragment: str
    quote: str
    raw: bool
    context: dict[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:  # what is typed stays out of reprs
        call = f"{self.receiver}.{self.method}"
        return f"CodeArgument({call}, {self.kind} {self.name!r}, argument {self.argument!r})"


@dataclass(frozen=True)
class _Token:
    kind: Literal["name", "number", "string", "open", "op"]
    text: str
    start: int


def code_argument(before: str, after: str = "") -> CodeArgument | None:
    """The argument string the cursor (at the end of `before`, `after` following it) is in, or None; never
    raises. The dict's literal entries on either side of the cursor are the context."""
    try:
        if not any(method in before for method in ("get_prompt", "read_template")):
            return None  # the usual Tab, anywhere else: no scanning
        return _target(_statement(before), after)
    except Exception:
        return None


FULL_SCAN = 20_000
"""Characters before the cursor read whole; of a longer cell, only its last top-level statement is read
(from the last line starting in column 0 with no bracket, quote or comment: a few ms at most)."""


def _statement(before: str) -> str:
    if len(before) <= FULL_SCAN:
        return before
    at = len(before)
    while at > 0:
        at = before.rfind("\n", 0, at - 1) + 1
        if before[at : at + 1] not in ("", " ", "\t", "\n", "#", "'", '"', *_BRACKETS, *_CLOSERS):
            return before[at:]
        at -= 1
    return before


def literal_content(value: str, code: CodeArgument) -> str | None:
    """`value` as written between `code`'s quotes (None: a raw string cannot hold it)."""
    if code.raw:
        bad = code.quote in value or value.endswith("\\") or not value.isprintable()
        return None if bad else value
    out = []
    for ch in value:
        if ch == "\\" or ch == code.quote:
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif not ch.isprintable():
            out.append(repr(ch)[1:-1])  # \x00, \u200b: an escape either quote takes
        else:
            out.append(ch)
    return "".join(out)


def _scan(text: str) -> list[_Token]:
    """Tokens of `text`; an unfinished string at its end is an "open" token (the last one)."""
    tokens: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in " \t\f\r\n":
            i += 1
        elif ch == "\\" and text[i + 1 : i + 2] in ("\n", "\r"):
            i += 2
        elif ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif ch.isalpha() or ch == "_" or ord(ch) > 127:
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_" or ord(text[j]) > 127):
                j += 1
            word = text[i:j]
            if j < n and text[j] in "'\"" and len(word) <= 2 and set(word.lower()) <= set("rbuf"):
                j = _string_end(text, j, "r" in word.lower())
                tokens.append(_Token("string" if j <= n else "open", text[i : min(j, n)], i))
                i = j
            else:
                tokens.append(_Token("name", word, i))
                i = j
        elif ch in "'\"":
            j = _string_end(text, i, False)
            tokens.append(_Token("string" if j <= n else "open", text[i : min(j, n)], i))
            i = j
        elif ch.isdigit() or (ch == "." and text[i + 1 : i + 2].isdigit()):
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] in "._" or _exponent_sign(text, j)):
                j += 1
            tokens.append(_Token("number", text[i:j], i))
            i = j
        else:
            tokens.append(_Token("op", ch, i))
            i += 1
    return tokens


def _exponent_sign(text: str, at: int) -> bool:
    return text[at] in "+-" and text[at - 1] in "eE"


def _string_end(text: str, quote_at: int, raw: bool) -> int:
    """Where the string whose quote is at `quote_at` ends (one past it); past `len(text)` when it does not."""
    n = len(text)
    quote = text[quote_at]
    triple = text[quote_at : quote_at + 3] == quote * 3
    i = quote_at + (3 if triple else 1)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if triple:
            if text[i : i + 3] == quote * 3:
                return i + 3
        elif ch == quote:
            return i + 1
        elif ch == "\n":
            return i  # an unfinished line's string ends at the line's end (a syntax error, passed over)
        i += 1
    return n + 1


def _target(before: str, after: str) -> CodeArgument | None:
    tokens = _scan(before)
    if not tokens or tokens[-1].kind != "open":
        return None
    opened = _open_brackets(tokens[:-1])
    if len(opened) < 2:
        return None
    brace, paren = opened[-1], opened[-2]
    if tokens[brace].text != "{" or tokens[paren].text != "(":
        return None
    string = _open_string(tokens[-1])
    if string is None:
        return None
    quote, raw, fragment, value = string
    entries = _split(tokens, brace + 1, len(tokens))
    *others, last = entries
    if len(last) != 3 or last[0].kind != "string" or last[1].text != ":":
        return None
    argument = _literal(last[0])
    if not isinstance(argument, str):
        return None
    call = _call(tokens, paren)
    if call is None:
        return None
    receiver, method = call
    kind = METHODS[method]
    name_keyword, dict_keyword = _KEYWORDS[kind]
    args = _split(tokens, paren + 1, brace)
    *given, current = args
    if _is_keyword(current, dict_keyword):
        pass
    elif current or len(given) != 1 or _keyword_of(given[0]) is not None:
        return None  # the dict is the second positional argument, or `arguments=` / `variables=`
    name: str | None = None
    for arg in given:
        keyword = _keyword_of(arg)
        if keyword is None and arg is given[0] and len(arg) == 1:
            name = _text(arg[0])
        elif keyword == name_keyword and len(arg) == 3:
            name = _text(arg[2])
    if name is None:
        return None
    context: dict[str, str] = {}
    for entry in [*others, *_entries_after(after, quote)]:
        if len(entry) == 3 and entry[1].text == ":" and entry[0].kind == "string":
            key, literal = _literal(entry[0]), _literal(entry[2])
            if isinstance(key, str) and key != argument and _is_plain(literal):
                context[key] = str(literal)
    return CodeArgument(receiver, method, kind, name, argument, value, fragment, quote, raw, context)


def _entries_after(after: str, quote: str) -> list[list[_Token]]:
    """The dict's entries after the cursor's string (up to the dict's `}`, or the text's end)."""
    end = _closing_quote(after, quote)
    if end is None:
        return []  # the string does not end (on this line): what follows is no code yet
    tokens = _scan(after[end:])
    depth, stop = 0, len(tokens)
    for index, token in enumerate(tokens):
        if token.kind == "op" and token.text in _BRACKETS:
            depth += 1
        elif token.kind == "op" and token.text in _CLOSERS:
            depth -= 1
            if depth < 0:
                stop = index
                break
    return _split(tokens, 0, stop)[1:]  # the first part ends the cursor's own entry


def _closing_quote(after: str, quote: str) -> int | None:
    """One past the quote that ends the cursor's (one-line) string in `after`; None if it does not end."""
    i = 0
    while i < len(after):
        ch = after[i]
        if ch == "\\":
            i += 2
            continue
        if ch == quote:
            return i + 1
        if ch == "\n":
            return None
        i += 1
    return None


def _open_brackets(tokens: list[_Token]) -> list[int]:
    """The indices of the brackets still open at the end (outermost first); a stray closer clears them."""
    stack: list[int] = []
    for index, token in enumerate(tokens):
        if token.kind != "op":
            continue
        if token.text in _BRACKETS:
            stack.append(index)
        elif token.text in _CLOSERS:
            if stack and tokens[stack[-1]].text == _CLOSERS[token.text]:
                stack.pop()
            else:
                stack.clear()
    return stack


def _split(tokens: list[_Token], start: int, end: int) -> list[list[_Token]]:
    """The comma-separated parts of `tokens[start:end]` at their bracket level (nested ones kept whole)."""
    parts: list[list[_Token]] = [[]]
    depth = 0
    for token in tokens[start:end]:
        if token.kind == "op" and token.text in _BRACKETS:
            depth += 1
        elif token.kind == "op" and token.text in _CLOSERS:
            depth -= 1
        elif depth == 0 and token.kind == "op" and token.text == ",":
            parts.append([])
            continue
        parts[-1].append(token)
    return parts


def _call(tokens: list[_Token], paren: int) -> tuple[str, str] | None:
    """`receiver.method` just before the call's `(`: a name or a dotted path of names (`a.srv`), and one of
    `METHODS`."""
    if paren < 3:
        return None
    dot, method = tokens[paren - 2 : paren]
    if dot.text != "." or method.kind != "name" or method.text not in METHODS:
        return None
    names: list[str] = []
    at = paren - 3
    while at >= 0 and tokens[at].kind == "name":
        names.append(tokens[at].text)
        if at == 0 or tokens[at - 1].text != ".":
            break
        at -= 2
    else:
        return None  # no name before the dot, or a path after a call or a subscript (`f().srv.get_prompt(`)
    return ".".join(reversed(names)), method.text


def _keyword_of(arg: list[_Token]) -> str | None:
    if len(arg) >= 2 and arg[0].kind == "name" and arg[1].kind == "op" and arg[1].text == "=":
        return arg[0].text
    return None


def _is_keyword(arg: list[_Token], keyword: str) -> bool:
    return len(arg) == 2 and _keyword_of(arg) == keyword


def _literal(token: _Token) -> object:
    """The value of one string or number token (`ast.literal_eval`: literals only), else None."""
    if token.kind not in ("string", "number"):
        return None
    if token.kind == "string" and set(_prefix(token.text)) & set("bf"):
        return None  # bytes are no text, and an f-string is code
    try:
        return ast.literal_eval(token.text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _prefix(text: str) -> str:
    """A string token's prefix (`r`, `rb`, ...), lowercased."""
    quotes = [i for i in (text.find("'"), text.find('"')) if i >= 0]
    return text[: min(quotes)].lower() if quotes else text.lower()


def _text(token: _Token) -> str | None:
    value = _literal(token) if token.kind == "string" else None
    return value if isinstance(value, str) else None


def _is_plain(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _open_string(token: _Token) -> tuple[str, bool, str, str] | None:
    """(quote, raw, fragment, value) of the unfinished string the cursor is in; None for a triple-quoted,
    bytes or f-string, or one whose text so far is no string yet (ends in a lone backslash)."""
    text = token.text
    prefix = _prefix(text)
    at = len(prefix)
    quote = text[at]
    if "b" in prefix or "f" in prefix or text[at : at + 3] == quote * 3:
        return None
    raw = "r" in prefix
    fragment = text[at + 1 :]
    if raw or "\\" not in fragment:
        if raw and fragment.endswith("\\") and (len(fragment) - len(fragment.rstrip("\\"))) % 2:
            return None
        return quote, raw, fragment, fragment
    try:
        value = ast.literal_eval(quote + fragment + quote)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return (quote, raw, fragment, value) if isinstance(value, str) else None
