"""The string formats we check ourselves: date, date-time, email, uri (pure, standard library only).

jsonschema ignores `format` by default, leaves "uri" unchecked and accepts "@" as an email.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
    r"(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))?"
)


def parse_date(value: object) -> dt.date | None:
    """A calendar date from "YYYY-MM-DD" (exactly) or a date object; None when it is not one."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if not isinstance(value, str):
        return None
    m = _DATE.fullmatch(value.strip())
    if not m:
        return None
    try:
        return dt.date(*(int(g) for g in m.groups()))
    except ValueError:
        return None


def date_time(value: object) -> dt.datetime | str | None:
    """An aware datetime, "naive" when it lacks an offset, or None when it is not a date and time."""
    if isinstance(value, dt.datetime):
        offset = value.utcoffset()
        if offset is None:
            return "naive"
        # RFC 3339 offsets are whole minutes.
        return value if offset.total_seconds() % 60 == 0 else None
    if not isinstance(value, str):
        return None
    m = _DATE_TIME.fullmatch(value.strip())
    if not m:
        return None
    year, month, day, hour, minute, second, frac, zulu, sign, off_h, off_m = m.groups()
    if zulu is None and sign is None:
        return "naive"
    try:
        tz = dt.timezone.utc
        if sign is not None:
            if int(off_h) > 23 or int(off_m) > 59:
                return None
            delta = dt.timedelta(hours=int(off_h), minutes=int(off_m))
            tz = dt.timezone(-delta if sign == "-" else delta)
        micro = int((frac[1:] + "000000")[:6]) if frac else 0
        return dt.datetime(
            int(year), int(month), int(day), int(hour), int(minute), int(second), micro, tzinfo=tz
        )
    except ValueError:
        return None


def parse_date_time(value: object) -> dt.datetime | None:
    """An aware datetime from an RFC 3339 date-time with offset (or an aware datetime); None otherwise."""
    parsed = date_time(value)
    return parsed if isinstance(parsed, dt.datetime) else None


_ATEXT = r"A-Za-z0-9!#$%&'*+/=?^_`{|}~\-\u0080-\U0010ffff"
_LOCAL = re.compile(rf"[{_ATEXT}]+(?:\.[{_ATEXT}]+)*")
_LABEL_CHARS = r"A-Za-z0-9\u0080-\U0010ffff"
_LABEL = re.compile(rf"[{_LABEL_CHARS}](?:[{_LABEL_CHARS}\-]{{0,61}}[{_LABEL_CHARS}])?")


def _printable(text: str) -> bool:
    """No whitespace, no control or format characters."""
    return not any(c.isspace() or unicodedata.category(c)[0] == "C" for c in text)


def is_email(text: str) -> bool:
    """A mailbox like name@example.com: a dot-atom local part and a domain of at least two labels.

    Quoted local parts and address literals (name@[192.0.2.1]) are refused: people don't type them.
    """
    if len(text) > 254 or text.count("@") != 1 or not _printable(text):
        return False
    local, domain = text.split("@")
    if not (0 < len(local) <= 64 and _LOCAL.fullmatch(local)):
        return False
    labels = domain.split(".")
    if len(labels) < 2 or not all(_LABEL.fullmatch(label) for label in labels):
        return False
    return not labels[-1].isdigit()  # "a@1.2" is an address literal in disguise


_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):(.*)", re.DOTALL)
_URI_CHARS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%\u0080-\U0010ffff]*")
_HOST_CHARS = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=%\u0080-\U0010ffff]*")
_IP_LITERAL = re.compile(r"\[(?:[0-9A-Fa-f:.]+|[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+)\]")
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})")


def is_uri(text: str) -> bool:
    """An absolute URI (RFC 3986): a scheme, then a non-empty rest; with "//", a host (empty only for file:).

    Non-ASCII letters are let through (people type IRIs such as https://例え.jp); whitespace never is.
    """
    if not text or not _printable(text):
        return False
    m = _SCHEME.fullmatch(text)
    if not m:
        return False
    scheme, rest = m.groups()
    if not rest or not _URI_CHARS.fullmatch(rest) or _BAD_ESCAPE.search(rest):
        return False
    if not rest.startswith("//"):
        return True
    authority = re.split(r"[/?#]", rest[2:], maxsplit=1)[0]
    hostport = authority.rpartition("@")[2]
    if hostport.startswith("["):
        end = hostport.find("]")
        host, port = hostport[: end + 1], hostport[end + 1 :]
        if end < 0 or not _IP_LITERAL.fullmatch(host) or (port and not port.startswith(":")):
            return False
        port = port[1:]
    else:
        host, _, port = hostport.partition(":")
        if not _HOST_CHARS.fullmatch(host):
            return False
    if port and not (port.isascii() and port.isdigit()):
        return False
    return bool(host) or scheme.lower() == "file"
