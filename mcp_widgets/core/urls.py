"""URL mode: whether a server's URL may be offered to a person, and what to warn about (pure, stdlib only).

`inspect_url` never fetches or resolves anything. It allows `https://` URLs with a host, and `http://` only
for this computer (localhost, 127.0.0.1, [::1]); everything else (`javascript:`, `data:`, `file:`, other
schemes, malformed URLs, URLs a browser would read differently from how they look) is refused with a reason
for people.
Reasons and warnings never quote the path, query or fragment: those may carry tokens.
"""

from __future__ import annotations

import ipaddress
import re
import unicodedata
from dataclasses import dataclass, field

__all__ = ["MAX_URL_LENGTH", "UrlCheck", "inspect_url", "visible"]

MAX_URL_LENGTH = 8192
"""Longer URLs are refused: nobody can examine them, and the spec wants the full URL shown."""

DEFAULT_PORTS = {"https": 443, "http": 80}
_LOOPBACK_NAMES = ("localhost", "127.0.0.1")

_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_PORT = re.compile(r"[0-9]{1,5}")
_LABEL = re.compile(r"[a-z0-9_\-]{1,63}")
# A last label like these makes a browser read the whole host as an IPv4 address (WHATWG "ends in a number").
_NUMERIC_LABEL = re.compile(r"[0-9]+|0x[0-9a-f]*")
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_DOTTED_QUAD = re.compile(rf"(?:{_OCTET}\.){{3}}{_OCTET}")

_BIDI = frozenset([0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)])
# Invisible but not format characters (category Cf is caught as a whole).
_INVISIBLE_EXTRA = frozenset([0x034F, 0x115F, 0x1160, 0x3164, 0xFFA0, *range(0xFE00, 0xFE10)])

# Letters that IDNA 2003 maps to others ("ß" to "ss") but browsers keep.
_DEVIATIONS = frozenset("ßẞς")

# Scripts whose letters imitate Latin ones; a label mixing any two of these (or one with Latin) is suspicious.
_LOOKALIKE_SCRIPTS = frozenset(["LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC"])


@dataclass(frozen=True, kw_only=True)
class UrlCheck:
    """What `inspect_url` found. Its repr leaves out the URL itself (the query may carry a token)."""

    url: str = field(repr=False)
    """The URL exactly as the server sent it."""
    allowed: bool
    """Whether the URL may be offered to the person at all."""
    refusal: str | None = None
    """Why it is refused, in words for people (never quoting the path or query); None when allowed."""
    scheme: str = ""
    """The scheme in lower case ("https"), or "" when there is none."""
    host: str = ""
    """The host as sent (IPv6 literals keep their brackets), or "" when there is none."""
    host_unicode: str | None = None
    """The host decoded from Punycode (IDNA), when that differs from `host`."""
    host_ascii: str | None = None
    """The ASCII (Punycode) form a browser goes to, when that differs from `host`."""
    port: int | None = None
    """An explicit port other than the scheme's default, else None."""
    warnings: tuple[str, ...] = ()
    """Things the person should know before consenting, one sentence each."""
    display_parts: tuple[str, str, str] = field(default=("", "", ""), repr=False)
    """(before the host, the host, after the host) of the `visible` URL, so a card can highlight the host."""
    redacted: str = ""
    """scheme://host[:port]/path, without credentials, query or fragment: safe for history and logs."""

    @property
    def display(self) -> str:
        """The full URL with invisible characters shown as ⟨U+XXXX⟩."""
        return "".join(self.display_parts)


def inspect_url(url: str) -> UrlCheck:
    """Classify a URL-mode request's URL and collect warnings for the person. Never raises, never fetches.

    Args:
        url: The `url` of an `elicitation/create` request in URL mode.

    Returns:
        A `UrlCheck`: `allowed` with warnings, or refused with a `refusal` saying why.
    """
    if not isinstance(url, str):
        return UrlCheck(url="", allowed=False, refusal="The URL is not text.")
    if not url:
        return _refuse(url, "The URL is empty.")
    if len(url) > MAX_URL_LENGTH:
        return _refuse(url, f"The URL is longer than {MAX_URL_LENGTH} characters, too long to examine.")
    match = _SCHEME.match(url)
    scheme = match.group(1).lower() if match else ""
    for ch in url:
        if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") or ch.isspace():
            why = "The URL contains spaces, line breaks or control characters."
            return _refuse(url, why, scheme=scheme)
    if "\\" in url:
        why = "The URL contains a backslash, which browsers read as “/”: it may not go where it seems."
        return _refuse(url, why, scheme=scheme)
    if match is None:
        return _refuse(url, "The URL has no scheme: only https:// pages are offered.")
    if scheme not in DEFAULT_PORTS:
        return _refuse(url, _scheme_refusal(scheme), scheme=scheme)

    rest = url[match.end() :]
    if not rest.startswith("//"):
        return _refuse(url, f"The URL must continue with “//” and a host after “{scheme}:”.", scheme=scheme)
    start = match.end() + 2
    end = _end_of_authority(url, start)
    authority, tail = url[start:end], url[end:]
    userinfo, at, hostport = authority.rpartition("@")

    # Split host and port (an IPv6 literal keeps its brackets).
    if hostport.startswith("["):
        close = hostport.find("]")
        if close < 0:
            return _refuse(url, "The IPv6 address in the URL has no closing “]”.", scheme=scheme)
        host, after_host = hostport[: close + 1], hostport[close + 1 :]
        if after_host and not after_host.startswith(":"):
            return _refuse(url, "The URL has characters between its host and port.", scheme=scheme)
        port_text = after_host[1:] if after_host else None
    else:
        host, colon, port_text_raw = hostport.partition(":")
        port_text = port_text_raw if colon else None

    if not host:
        return _refuse(url, "The URL has no host.", scheme=scheme)
    port: int | None = None
    if port_text:  # an empty port ("host:/") means the default, as in browsers
        if not _PORT.fullmatch(port_text) or int(port_text) > 65535:
            return _refuse(url, "The URL's port is not a number from 0 to 65535.", scheme=scheme, host=host)
        port = int(port_text)
        if port == DEFAULT_PORTS[scheme]:
            port = None

    checked = _check_host(host)
    if isinstance(checked, str):
        return _refuse(url, checked, scheme=scheme, host=host)
    ascii_host, unicode_host, loopback, host_warnings = checked

    if scheme == "http" and not loopback:
        return _refuse(
            url,
            "Plain http:// is only offered for pages on this computer (localhost, 127.0.0.1, [::1]); "
            "other pages must use https://.",
            scheme=scheme,
            host=host,
        )

    warnings = list(host_warnings)
    if at:
        warnings.append(
            f"The URL carries a user name or password before “@”: the page it opens is on {visible(host)}, "
            "not on what comes before the “@”."
        )
    if port is not None:
        warnings.append(
            f"The URL uses port {port} instead of the usual {DEFAULT_PORTS[scheme]} for {scheme}://."
        )
    if scheme == "http":
        warnings.append("Plain http:// (not encrypted): allowed only because the page is on this computer.")
    warnings += _invisible_warnings(url[:start] + userinfo + tail)

    path = re.split(r"[?#]", tail, maxsplit=1)[0]
    netloc = visible(host) + (f":{port}" if port is not None else "")
    host_start = start + len(userinfo) + len(at)
    return UrlCheck(
        url=url,
        allowed=True,
        scheme=scheme,
        host=host,
        host_unicode=unicode_host if unicode_host.lower() != host.lower() else None,
        host_ascii=ascii_host if ascii_host.lower() != host.lower() else None,
        port=port,
        warnings=tuple(warnings),
        display_parts=(visible(url[:host_start]), visible(host), visible(url[host_start + len(host) :])),
        redacted=f"{scheme}://{netloc}{visible(path)}",
    )


def visible(text: str) -> str:
    """`text` with every invisible or direction-changing character replaced by ⟨U+XXXX⟩."""
    if text.isascii():
        return text
    return "".join(f"⟨U+{ord(ch):04X}⟩" if _invisible_kind(ch) else ch for ch in text)


# -- internals -----------------------------------------------------------------------------------------------
def _refuse(url: str, why: str, *, scheme: str = "", host: str = "") -> UrlCheck:
    shown_host = visible(host)
    if scheme in DEFAULT_PORTS and host:
        redacted = f"{scheme}://{shown_host}"
    elif scheme:
        redacted = f"{scheme}:…"  # never the payload of a javascript: or data: URL
    else:
        redacted = "…"
    return UrlCheck(
        url=url,
        allowed=False,
        refusal=why,
        scheme=scheme,
        host=host,
        display_parts=("", "", visible(url)),
        redacted=redacted,
    )


def _scheme_refusal(scheme: str) -> str:
    if scheme == "javascript":
        return "javascript: URLs run code in the notebook's page; they are never opened."
    if scheme == "data":
        return "data: URLs carry a whole page inside the URL; they are never opened."
    if scheme == "file":
        return "file: URLs open files on this computer; they are never opened."
    shown = scheme if len(scheme) <= 24 else scheme[:24] + "…"
    return f"Only https:// pages are offered, not “{shown}:” URLs."


def _end_of_authority(url: str, start: int) -> int:
    ends = [i for i in (url.find(c, start) for c in "/?#") if i >= 0]
    return min(ends, default=len(url))


def _check_host(host: str) -> tuple[str, str, bool, list[str]] | str:
    """(ASCII form, Unicode form, is loopback, warnings) of a host, or why it is refused."""
    if not host:
        return "The URL has no host."
    if host.startswith("["):
        inner = host[1:-1]
        if "%" in inner:
            return "The IPv6 address in the URL has a zone index, which browsers do not accept."
        try:
            address = ipaddress.IPv6Address(inner)
        except ValueError:
            return "The IPv6 address in the URL is not valid."
        return host, host, address == ipaddress.IPv6Address("::1"), []
    if any(_invisible_kind(ch) for ch in host):
        return "The host contains invisible or direction-changing characters."
    if "%" in host:
        return "The host is percent-encoded, which hides what it really is."
    if any(ch in _DEVIATIONS for ch in host):
        # IDNA 2003 (Python) and browsers (UTS 46) turn these into different addresses: no sure host to show.
        return "The host contains “ß” or “ς”, which different software turns into different addresses."
    try:
        ascii_host = host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        return "The host is not a valid domain name."
    name = ascii_host[:-1] if ascii_host.endswith(".") else ascii_host
    labels = name.split(".")
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels):
        return "The host contains characters that are not allowed in a host name."
    if _NUMERIC_LABEL.fullmatch(labels[-1]) and not _DOTTED_QUAD.fullmatch(name):
        return "The host is a number in an unusual form: browsers would read it as an IP address."
    try:
        unicode_host = ascii_host.encode("ascii").decode("idna")
    except UnicodeError:
        return "The host has an invalid Punycode (xn--) part."
    loopback = name in _LOOPBACK_NAMES

    warnings = []
    if not host.isascii():
        warnings.append(
            f"The host “{host}” contains non-ASCII characters; the browser goes to “{ascii_host}”. Letters "
            "from other alphabets can imitate a familiar name."
        )
    elif any(label.startswith("xn--") for label in labels):
        warnings.append(
            f"The host is written in Punycode: “{host}” reads as “{unicode_host}”. Check that this is the "
            "site you expect."
        )
    mixed = _mixed_scripts(unicode_host)
    if mixed:
        warnings.append(f"The host mixes {mixed} letters, a common way to imitate another site's name.")
    return ascii_host, unicode_host, loopback, warnings


def _mixed_scripts(host: str) -> str:
    """ "Latin and Cyrillic" when one label mixes look-alike scripts, else ""."""
    for label in host.split("."):
        scripts = set()
        for ch in label:
            if ch.isascii() and not ch.isalpha():
                continue
            word = unicodedata.name(ch, "").split(" ")[0]
            if word in _LOOKALIKE_SCRIPTS:
                scripts.add(word)
        if len(scripts) > 1:
            names = sorted(s.title() for s in scripts)
            return ", ".join(names[:-1]) + " and " + names[-1]
    return ""


def _invisible_kind(ch: str) -> str:
    code = ord(ch)
    if code < 0x80:
        return ""
    if code in _BIDI:
        return "bidi"
    if unicodedata.category(ch) == "Cf" or code in _INVISIBLE_EXTRA or 0xE0100 <= code <= 0xE01EF:
        return "invisible"
    return ""


def _invisible_warnings(text: str) -> list[str]:
    found: dict[str, list[str]] = {"bidi": [], "invisible": []}
    for ch in dict.fromkeys(text):  # unique, in order
        kind = _invisible_kind(ch)
        if kind:
            found[kind].append(f"U+{ord(ch):04X} {unicodedata.name(ch, 'UNNAMED')}")
    out = []
    if found["bidi"]:
        out.append(
            "The URL contains invisible characters that change the direction of text ("
            + ", ".join(found["bidi"][:3])
            + "): it may not read the way it really is. They are shown as ⟨U+…⟩."
        )
    if found["invisible"]:
        out.append(
            "The URL contains invisible characters ("
            + ", ".join(found["invisible"][:3])
            + "). They are shown as ⟨U+…⟩."
        )
    return out
