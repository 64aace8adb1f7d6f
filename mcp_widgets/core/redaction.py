"""What must not be shown again: typed values in a server's echo, secret tool arguments, URL credentials.

Pure helpers for the client's redaction (`client/privacy.py`) and a logging filter for our logger and the
SDK's (`guard_logger`).

One concept: finding what must not be shown in a server's text, and replacing it; its parts (typed values'
matchers, secret argument names, URL credentials, resource labels) are each small and share `REDACTED`.

A typed value is matched as itself in any letter case and in the forms escapers give it: JSON (`\\u00e9`,
`\\"`, doubly escaped too), URL (`%C3%A9`, `+`, doubly encoded `%25C3%25A9`), HTML (`&eacute;`, `&#233;`,
`&#xe9;`, letters and digits too: `&#112;`) and Python (`\\xe9`), each character on its own, so mixed escapes
match as well. Fullwidth letters (`ｐｉｎ`), composed or decomposed accents (`é` / `e` + U+0301) and
invisible characters between the value's own (zero-width space, joiners, soft hyphen) match too, as does a
value of 4 characters or more in base64 (standard or URL-safe, padded or not). Values of 4 characters or
more match anywhere (a server may glue one to a word: `pin48151623`); shorter ones only as whole tokens, else
typing `an` would cut words of every message apart. Booleans and 1-character values are not redacted (a
`2` would cut every count apart).

A value over `SPELLED` (32) characters, a pasted note or a long token, is matched by its pieces instead
(`_Pieces`): as typed in any letter case, composed or decomposed, JSON-escaped (once or twice), URL-encoded,
HTML-escaped or in base64, whole or any run of 32 characters or more of it (a server quoting the start of a
note); not in per-character mixed escapes, fullwidth letters or with invisible characters slipped in. Its cost
is linear in the value and in the text searched: a per-character pattern of 10,000 characters took seconds to
build, on the thread every server's traffic shares. Each value's matcher is built once, when first searched
with, and kept (`Matcher`): typing one more character builds that new value's matcher only.

Not matched (docs/privacy.md says so): a value inside a longer base64 text, a value split
across two messages, and other encodings (hex dumps, ROT13, ...).
"""

from __future__ import annotations

import base64
import functools
import html
import html.entities
import json
import logging
import re
import traceback
import unicodedata
import urllib.parse
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

REDACTED = "[redacted]"
"""Stands in for a typed value quoted in a server's error, log or progress message."""

ANYWHERE = 4
"""Values this long or longer are redacted even when glued to a word."""

SPELLED = 32
"""Values this long or shorter are matched character by character in every spelling; a longer one (a pasted
note) by its pieces (`_Pieces`): a per-character pattern's build grows steeply with its length (seconds for
10,000 characters, on the thread every server's traffic shares)."""

PIECE = 16
"""Characters of a long value's pieces: any run of twice as many that a server quotes is found."""

BUILDS = 0
"""Value matchers built so far (each value's once): tests count them."""

_ENTITIES = {cp: name for cp, name in html.entities.codepoint2name.items()}
_ENTITIES[ord("'")] = "apos"


_INVISIBLE = r"(?:[\u00ad\u200b-\u200f\u2060-\u2064\ufeff])*"
"""Characters a server may slip between a value's own (zero-width space, joiners, marks, soft hyphen)."""


def _either(items: Iterable[str]) -> str:
    """One regex alternation of `items`, longest first (leftmost-first: a longer spelling is taken whole)."""
    ordered = sorted(set(items), key=lambda x: (-len(x), x))
    return ordered[0] if len(ordered) == 1 else f"(?:{'|'.join(ordered)})"


def _char_regex(ch: str) -> str:
    """One character of a typed value, itself or escaped: the forms that share a start are grouped (one
    `&#...;`, one `%...`, one backslash escape, one class of the letters), so a scan tries few alternatives
    at each position of a text."""
    letters, decimal, hexa, url, long_u, short_x, other = set(), set(), set(), set(), set(), set(), set()
    for c in {ch, ch.lower(), ch.upper()}:
        if len(c) != 1:
            continue  # "ß".upper() is "SS": the pattern ignores case anyway
        cp = ord(c)
        letters.add(c)
        if 0x21 <= cp <= 0x7E:
            letters.add(chr(cp + 0xFEE0))  # fullwidth: ｐ for p
        decimal.add(str(cp))
        hexa.add(f"{cp:x}")
        url.add("".join(f"%(?:25)*{b:02x}" for b in c.encode("utf-8")))  # URL-encoded, once or more
        if c.isascii() and c.isalnum():
            long_u.add(f"{cp:04x}")
            short_x.add(f"{cp:02x}")
            continue  # no other escaper touches these
        other.add(r"\\+" + re.escape(c))  # \"  \/  \\ (and doubly escaped)
        if cp < 0x10000:
            long_u.add(f"{cp:04x}")
        else:
            high, low = 0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)
            other.add(rf"\\+u{high:x}\\+u{low:x}")
            other.add(rf"\\+U{cp:08x}")
        if cp < 0x100:
            short_x.add(f"{cp:02x}")
        if cp in _ENTITIES:
            other.add(f"&{_ENTITIES[cp]};")
        if c in "\n\t\r\b\f":
            other.add(r"\\+" + {"\n": "n", "\t": "t", "\r": "r", "\b": "b", "\f": "f"}[c])
    if ch == " ":
        other.add(r"\+")
    escapes = [f"u{_either(long_u)}", *([f"x{_either(short_x)}"] if short_x else [])]
    parts = sorted(other, key=lambda x: (-len(x), x))
    parts += [f"&#(?:0*{_either(decimal)}|x0*{_either(hexa)});", _either(url), r"\\+" + _either(escapes)]
    plain = sorted(letters)
    parts.append(f"[{''.join(re.escape(c) for c in plain)}]" if len(plain) > 1 else re.escape(plain[0]))
    return f"(?:{'|'.join(parts)})"


def _spelled(value: str) -> str:
    """`value` character by character, each in any of its forms, invisible characters allowed between."""
    return _INVISIBLE.join(_char_regex(ch) for ch in value)


def _base64_forms(value: str) -> set[str]:
    """The whole value in base64, standard or URL-safe, padded or not (the pattern ignoring case makes a
    wrong match possible only where the text holds the value's base64 in other letter case: harmless)."""
    raw = value.encode("utf-8")
    return {
        re.escape(e.decode("ascii").rstrip("=")) + "=*"
        for e in (base64.b64encode(raw), base64.urlsafe_b64encode(raw))
    }


def _base64(raw: bytes) -> tuple[bytes, bytes]:
    return base64.b64encode(raw), base64.urlsafe_b64encode(raw)


@functools.lru_cache(maxsize=256)
def _value_pattern(value: str) -> re.Pattern[str]:
    """One value's spellings, compiled once per value (typing a field adds one value, not a rebuild)."""
    global BUILDS
    BUILDS += 1
    alternatives = [_spelled(v) for v in sorted({unicodedata.normalize(f, value) for f in ("NFC", "NFD")})]
    if len(value) >= ANYWHERE:
        alternatives += sorted(_base64_forms(value))
        return re.compile(f"(?:{'|'.join(alternatives)})", re.IGNORECASE)
    return re.compile(rf"(?<!\w)(?:{'|'.join(alternatives)})(?!\w)", re.IGNORECASE)


class _Span:
    """Where a typed value was found (as `re.Match` says it: `start()`, `end()`)."""

    __slots__ = ("_end", "_start")

    def __init__(self, start: int, end: int) -> None:
        self._start, self._end = start, end

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end


class _Pieces:
    """A long value (over `SPELLED` characters), matched by its pieces: the text is read once, each of its
    `PIECE`-character slices looked up among the value's (in each literal form an escaper gives it), and a
    hit grown to the whole run the text shares with that form. Linear in the text and the value."""

    def __init__(self, value: str) -> None:
        global BUILDS
        BUILDS += 1
        raw = value.encode("utf-8")
        forms = {unicodedata.normalize(f, value) for f in ("NFC", "NFD")}
        forms |= {json.dumps(f)[1:-1] for f in list(forms)}  # JSON-escaped, then twice
        forms |= {json.dumps(f)[1:-1] for f in list(forms)}
        forms |= {urllib.parse.quote(value, safe=""), urllib.parse.quote_plus(value), html.escape(value)}
        forms |= {e.decode("ascii").rstrip("=") for e in _base64(raw)}
        self.forms = [f.lower() for f in sorted(forms)]
        encoded = {e.decode("ascii").rstrip("=").lower() for e in _base64(raw)}
        self.padded = {n for n, f in enumerate(self.forms) if f in encoded}
        """The base64 forms: "=" padding after one's end is the value's too."""
        self.starts: dict[str, list[tuple[int, int]]] = {}
        """Each form's slices at every `PIECE`-th character -> (form, offset): any run of 2 x `PIECE`
        characters the text shares with a form holds one of them."""
        for n, form in enumerate(self.forms):
            for at in range(0, max(len(form) - PIECE + 1, 1), PIECE):
                self.starts.setdefault(form[at : at + PIECE], []).append((n, at))

    def spans(self, text: str) -> list[tuple[int, int]]:
        lowered = text.lower()
        if len(lowered) != len(text):  # a letter whose lower case is longer (rare): as it is
            lowered = text
        found: list[tuple[int, int]] = []
        i, last = 0, len(lowered) - PIECE
        starts = self.starts
        while i <= last:
            hits = starts.get(lowered[i : i + PIECE])
            if hits is None:
                i += 1
                continue
            best, whole = (i, i + PIECE), False
            for n, at in hits[:8]:  # a repetitive value has a slice in many places: a few of them do
                start, end, stop = _grown(lowered, i, self.forms[n], at)
                if end - start > best[1] - best[0]:
                    best, whole = (start, end), n in self.padded and stop == len(self.forms[n])
            if whole:  # the value's whole base64: its padding too
                end = best[1]
                while end < len(lowered) and lowered[end] == "=":
                    end += 1
                best = (best[0], end)
            found.append(best)
            i = best[1]
        return found


def _grown(text: str, i: int, form: str, at: int) -> tuple[int, int, int]:
    """The run of `text` around `text[i:]` == `form[at:]` (a shared slice) that equals `form` there: its
    start and end, and where it ends in `form`."""
    start, begin = i, at
    while start > 0 and begin > 0 and text[start - 1] == form[begin - 1]:
        start, begin = start - 1, begin - 1
    end, stop = i + PIECE, at + PIECE
    while text[end : end + PIECE] == form[stop : stop + PIECE] and stop + PIECE <= len(form):
        end, stop = end + PIECE, stop + PIECE
    while end < len(text) and stop < len(form) and text[end] == form[stop]:
        end, stop = end + 1, stop + 1
    return start, end, stop


@functools.lru_cache(maxsize=32)
def _pieces(value: str) -> _Pieces:
    return _Pieces(value)


_Entry = tuple[int, "re.Pattern[str] | _Pieces", tuple[str, ...] | None]

_ESCAPING = re.compile(r"[&%\\+]")
"""What every escaped spelling needs (an entity, a URL escape, a backslash escape, "+" for a space); the
fullwidth, decomposed and invisible ones need a character beyond ASCII."""


def _matcher(value: str) -> _Entry:
    """A value's matcher, the shortest text it can match, and the texts one of which an ASCII text without
    `_ESCAPING` holds wherever it matches (lower case; None: no such shortcut for this value)."""
    if len(value) > SPELLED:
        return PIECE, _pieces(value), None
    probes: tuple[str, ...] | None = None
    if value.isascii():  # a letter beyond ASCII may match an ASCII one ignoring case (ſ, K): no shortcut
        probes = (value.lower(),)
        if len(value) >= ANYWHERE:
            probes += tuple(e.decode("ascii").rstrip("=").lower() for e in _base64(value.encode("utf-8")))
    return _shortest(value), _value_pattern(value), probes


def _shortest(value: str) -> int:
    """The fewest characters any spelling of `value` takes (each spells a character with one or more)."""
    return min(len(unicodedata.normalize(f, value)) for f in ("NFC", "NFD"))


class Matcher:
    """What was typed, as a server may quote it: each value's own matcher (built once per value and kept,
    so a new value typed costs its own build only). Read as a compiled pattern is (`search`, `sub`,
    `finditer`); a value's pattern is built when first searched with, not when typed."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.texts = tuple(sorted(set(texts), key=len, reverse=True))
        self._built: list[_Entry] | None = None

    def _matchers(self) -> list[_Entry]:
        """Each value's matcher with the shortest text it can match, shortest first (a text shorter than a
        value's every spelling is not searched for it: most strings of a message are short)."""
        built = self._built
        if built is None:
            built = self._built = sorted((_matcher(t) for t in self.texts), key=lambda pair: pair[0])
        return built

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where a typed value is, in order, overlapping ones joined."""
        found: list[tuple[int, int]] = []
        size = len(text)
        # Most texts are plain ASCII: a value can be there only as itself (or its base64), which a substring
        # test finds far faster than its pattern's scan.
        plain = text.isascii() and _ESCAPING.search(text) is None
        lowered = text.lower() if plain else ""
        for shortest, matcher, probes in self._matchers():
            if shortest > size:
                break
            if plain and probes is not None and not any(probe in lowered for probe in probes):
                continue
            if isinstance(matcher, _Pieces):
                found += matcher.spans(text)
            else:
                found += [m.span() for m in matcher.finditer(text)]
        found.sort()
        joined: list[tuple[int, int]] = []
        for start, end in found:
            if joined and start < joined[-1][1]:
                joined[-1] = (joined[-1][0], max(end, joined[-1][1]))
            elif end > start:
                joined.append((start, end))
        return joined

    def finditer(self, text: str) -> Iterator[_Span]:
        return (_Span(start, end) for start, end in self.spans(text))

    def search(self, text: str) -> _Span | None:
        return next(self.finditer(text), None)

    def sub(self, repl: str, text: str) -> str:
        spans = self.spans(text)
        if not spans:
            return text
        out: list[str] = []
        at = 0
        for start, end in spans:
            out += [text[at:start], repl]
            at = end
        out.append(text[at:])
        return "".join(out)


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, bool) or value is None:
        return
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _strings(item)
    else:
        text = str(value)
        if len(text) >= 2:
            yield text


def typed_pattern(values: Iterable[Any]) -> Matcher | None:
    """A matcher of any of `values` (nested lists and dicts too) as a server may quote it, or None."""
    texts = {text for value in values for text in _strings(value)}
    return Matcher(texts) if texts else None


def scrub(data: Any, typed: Matcher) -> Any:
    """`data` (JSON-like) with every string match of `typed` replaced, and numbers equal to one dropped."""
    kind = type(data)
    # What JSON parses to first, by exact type: this walks every message that quotes a typed value.
    if kind is str:
        return typed.sub(REDACTED, data)
    if kind is dict:
        return {scrub(k, typed): scrub(v, typed) for k, v in data.items()}
    if kind is list:
        return [scrub(v, typed) for v in data]
    if kind is bool or data is None:
        return data
    if kind is int or kind is float:
        return REDACTED if typed.search(str(data)) else data
    if isinstance(data, str):
        return typed.sub(REDACTED, data)
    if isinstance(data, Mapping):
        return {scrub(k, typed): scrub(v, typed) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [scrub(v, typed) for v in data]
    if isinstance(data, (int, float)) and not isinstance(data, bool) and typed.search(str(data)):
        return REDACTED
    return data


HEAD_KEEP = 8192
"""Characters of a server's text that a line shows at most (the callers clip to 2,000 or fewer): only these
are searched for typed values, so a 50 MB log message costs what a short one does."""
SLACK = 2048
"""Characters past the kept head also searched: a typed value (in any of its spellings) that starts in the
head ends within them, and is redacted whole, never cut to its first characters."""


def redact_head(text: str, typed: Matcher | None, keep: int = HEAD_KEEP) -> str:
    """`text` redacted (`typed`'s matches become `[redacted]`), cut after `keep` characters ("…"): the search
    reads `keep + SLACK` characters however long the text is, and the cut falls where no match was cut."""
    if len(text) <= keep:
        return text if typed is None else typed.sub(REDACTED, text)
    window = text[: keep + SLACK]
    if typed is None:
        return window[:keep] + "…"
    out: list[str] = []
    at = 0
    for match in typed.finditer(window):
        if match.start() >= keep:
            break
        out += [window[at : match.start()], REDACTED]
        at = match.end()
    out.append(window[at:keep])
    return "".join(out) + ("…" if max(at, keep) < len(text) else "")


# -- secret tool arguments --------------------------------------------------------------------------------

_SECRET_WORDS = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "passcode",
        "secret",
        "token",
        "apikey",
        "credential",
        "credentials",
        "pin",
        "otp",
        "totp",
        "cookie",
        "authorization",
        "bearer",
    }
)
_SECRET_ENDINGS = ("apikey", "privatekey", "secretkey", "accesskey", "authkey", "signingkey", "sessionkey")


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w for w in re.split(r"[^A-Za-z0-9]+", spaced.lower()) if w]


def is_secret_argument(name: str, schema: Any = None) -> bool:
    """A secret argument: `format: password` or `writeOnly: true` (pydantic's `SecretStr`), or a
    password-like name (`password`, `api_key`, `accessToken`, `client_secret`, `pin`, ...)."""
    marked = isinstance(schema, Mapping) and (schema.get("format") == "password" or schema.get("writeOnly"))
    if marked is True:
        return True
    words = _words(name)
    joined = "".join(words)
    return any(w in _SECRET_WORDS for w in (*words, joined)) or joined.endswith(_SECRET_ENDINGS)


def secret_values(schema: Any, arguments: Mapping[str, Any] | None) -> list[Any]:
    """The values in `arguments` of the arguments `schema` (an inputSchema) or their names mark secret."""
    if not arguments:
        return []
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    props = props if isinstance(props, Mapping) else {}
    found: list[Any] = []
    for name, value in arguments.items():
        sub = props.get(name)
        if is_secret_argument(str(name), sub):
            found.append(value)
        elif isinstance(value, Mapping):
            found += secret_values(sub, value)
    return found


# -- URLs -------------------------------------------------------------------------------------------------

_URL = re.compile(
    r"(?P<scheme>\b[a-z][a-z0-9+.\-]*://)(?P<user>[^\s/?#'\"<>]*@)?(?P<rest>[^\s?#'\"<>]*)"
    r"(?P<query>\?[^\s#'\"<>]*)?(?P<fragment>#[^\s'\"<>]*)?",
    re.IGNORECASE,
)


def _clean_url(match: re.Match[str]) -> str:
    user, query, fragment = match["user"], match["query"], match["fragment"]
    return (
        match["scheme"]
        + ("…@" if user else "")
        + match["rest"]
        + ("?…" if query and len(query) > 1 else query or "")
        + ("#…" if fragment and len(fragment) > 1 else fragment or "")
    )


def strip_url_secrets(text: str) -> str:
    """`text` with each URL's `user:password@`, query string and fragment replaced by "…"."""
    return _URL.sub(_clean_url, text) if "://" in text else text


class UrlSecretsFilter(logging.Filter):
    """Rewrites a log record so no URL in it (message, traceback, stack) carries credentials or a query,
    and, given `typed` (what the person typed lately, as one pattern, or None), nothing typed is quoted.

    A filter rather than care at each call site: tracebacks logged with `exc_info` quote URLs from deep
    inside the HTTP stack (a failed fallback's `httpx` error), and the SDK's own records quote what a server
    sent (a stdout line it could not parse, a malformed notification's params), which no call site reaches.
    """

    def __init__(self, typed: Callable[[], Matcher | None] | None = None) -> None:
        super().__init__()
        self.typed = typed

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: leave it to logging's own error report
            return True
        typed = self.typed() if self.typed is not None else None

        def clean(text: str) -> str:
            text = strip_url_secrets(text)
            return typed.sub(REDACTED, text) if typed is not None else text

        cleaned = clean(message)
        if cleaned != message:
            record.msg, record.args = cleaned, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            cleaned = clean(record.exc_text)
            if typed is not None and record.exc_info and _quotes_typed(record.exc_info[1], typed):
                # A validator's traceback cuts a long input in the middle, maybe inside a typed value:
                # what is left of it would not match. Its error is named, its text not shown.
                _, error, frames = record.exc_info
                cleaned = "".join(["Traceback (most recent call last):\n", *traceback.format_tb(frames)])
                cleaned += f"{type(error).__name__}: (not shown: it quoted what was typed, {REDACTED})"
            if cleaned != record.exc_text:
                record.exc_text, record.exc_info = cleaned, None  # a handler reading exc_info re-quotes it
        if record.stack_info:
            record.stack_info = clean(record.stack_info)
        return True


def _quotes_typed(error: BaseException | None, typed: Matcher) -> bool:
    """`error`, or one it chains to, holds input (a validator's `errors()`) that quotes a typed value."""
    todo, seen = [error], set()
    while todo:
        exc = todo.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        errors = getattr(exc, "errors", None)
        if callable(errors):
            try:
                inputs = [item.get("input") for item in errors()]
            except Exception:
                inputs = []
            if any(scrub(item, typed) != item for item in inputs):
                return True
        todo += [exc.__cause__, exc.__context__, *getattr(exc, "exceptions", ())]
    return False


def guard_logger(logger: logging.Logger, typed: Callable[[], Matcher | None] | None = None) -> None:
    """Add `UrlSecretsFilter` to `logger` (once; `typed`, when given, replaces the one it had)."""
    for found in logger.filters:
        if isinstance(found, UrlSecretsFilter):
            if typed is not None:
                found.typed = typed
            return
    logger.addFilter(UrlSecretsFilter(typed))


# -- resource URIs ----------------------------------------------------------------------------------------


def _template_regex(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]*\})", template)
    out = []
    for part in parts:
        if part.startswith("{") and part.endswith("}"):
            op = part[1:2]
            out.append(r"(?:[?&#][^#]*)?" if op in ("?", "&", "#") else r".*?")
        else:
            out.append(re.escape(part))
    return re.compile("".join(out), re.DOTALL)


def resource_label(uri: str, templates: Sequence[str] = (), static: Iterable[str] = ()) -> str:
    """What may be kept of a resource read's URI: itself if listed, its template if one matches, else
    its scheme only (the rest may be filled in by the person: `records://patient-4711` -> `records://…`)."""
    if uri in set(static):
        return uri
    for template in templates:
        if "{" in template and _template_regex(template).fullmatch(uri):
            return template
    scheme = re.match(r"[a-z][a-z0-9+.\-]*:(//)?", uri, re.IGNORECASE)
    return f"{scheme.group(0)}…" if scheme else "…"
