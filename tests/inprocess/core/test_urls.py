"""inspect_url: which URLs may be offered, what the person is warned about, and what logs may keep."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mcp_widgets.core.urls as urls
from mcp_widgets.core.urls import MAX_URL_LENGTH, UrlCheck, inspect_url, visible


def allowed(url: str) -> UrlCheck:
    check = inspect_url(url)
    assert check.allowed, check.refusal
    assert check.refusal is None
    return check


def refused(url: object) -> UrlCheck:
    check = inspect_url(url)  # type: ignore[arg-type]
    assert not check.allowed
    assert check.refusal
    assert check.warnings == ()
    return check


def warned(check: UrlCheck, *words: str) -> str:
    """The one warning that mentions every word."""
    found = [w for w in check.warnings if all(word in w for word in words)]
    assert len(found) == 1, check.warnings
    return found[0]


# -- allowed -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        "https://example.com",
        "https://example.com/",
        "https://example.com/sign-in?state=abc&x=1#top",
        "https://sub.example.co.uk/a/b/c.html",
        "https://ex-ample.com/",
        "https://_acme.example.com/",
        "https://192.0.2.7/",
        "https://[2001:db8::1]/",
        "https://example.com/über/café?q=ñ",
        "https://example.com?only=query",
        "https://example.com#only-fragment",
    ],
)
def test_plain_https_urls_are_allowed_without_warnings(url: str) -> None:
    check = allowed(url)
    assert check.scheme == "https"
    assert check.warnings == ()
    assert check.port is None
    assert check.url == url
    assert check.display == url
    assert check.host_unicode is None and check.host_ascii is None


def test_the_parts_of_an_allowed_url() -> None:
    check = allowed("https://auth.example.com/connect/start?elicitationId=42#frag")
    assert check.host == "auth.example.com"
    assert check.display_parts == ("https://", "auth.example.com", "/connect/start?elicitationId=42#frag")
    assert check.redacted == "https://auth.example.com/connect/start"


def test_uppercase_scheme_and_host_are_allowed_and_shown_as_sent() -> None:
    check = allowed("HTTPS://EXAMPLE.COM/Path")
    assert check.scheme == "https"
    assert check.host == "EXAMPLE.COM"
    assert check.host_ascii is None and check.host_unicode is None  # case alone is no difference
    assert check.display_parts == ("HTTPS://", "EXAMPLE.COM", "/Path")
    assert check.warnings == ()
    assert allowed("HtTpS://example.com").scheme == "https"


@pytest.mark.parametrize(
    "url, host",
    [
        ("http://localhost/", "localhost"),
        ("http://localhost", "localhost"),
        ("http://LOCALHOST/cb", "LOCALHOST"),
        ("http://localhost./", "localhost."),
        ("http://127.0.0.1/", "127.0.0.1"),
        ("HTTP://127.0.0.1/cb?code=1", "127.0.0.1"),
        ("http://[::1]/", "[::1]"),
        ("http://[0:0:0:0:0:0:0:1]/", "[0:0:0:0:0:0:0:1]"),
    ],
)
def test_plain_http_is_allowed_for_this_computer_only(url: str, host: str) -> None:
    check = allowed(url)
    assert check.scheme == "http"
    assert check.host == host
    warned(check, "Plain http://", "this computer")


def test_a_dev_server_on_localhost_with_a_port() -> None:
    check = allowed("http://localhost:8000/callback")
    assert check.port == 8000
    warned(check, "port 8000", "usual 80")
    assert check.redacted == "http://localhost:8000/callback"
    assert check.display_parts == ("http://", "localhost", ":8000/callback")


# -- refused -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        "http://example.com/",
        "http://EXAMPLE.com",
        "http://127.0.0.2/",
        "http://192.168.1.1/",
        "http://[::2]/",
        "http://[::ffff:127.0.0.1]/",
        "http://localhost.example.com/",
        "http://127.0.0.1.nip.io/",
        "http://evil-localhost/",
        "http://localhost@evil.com/",
    ],
)
def test_plain_http_elsewhere_is_refused(url: str) -> None:
    check = refused(url)
    assert "https://" in check.refusal  # type: ignore[operator]
    assert check.scheme == "http"


@pytest.mark.parametrize(
    "url, scheme, words",
    [
        ("javascript:alert(document.cookie)", "javascript", "run code"),
        ("JavaScript:alert(1)", "javascript", "run code"),
        ("javascript://example.com/%0Aalert(1)", "javascript", "run code"),
        ("data:text/html,<script>alert(1)</script>", "data", "whole page"),
        ("DATA:text/html;base64,PHNjcmlwdD4=", "data", "whole page"),
        ("file:///etc/passwd", "file", "files on this computer"),
        ("file://server/share", "file", "files on this computer"),
        ("ftp://example.com/x", "ftp", "“ftp:”"),
        ("ws://localhost/", "ws", "“ws:”"),
        ("wss://example.com/", "wss", "“wss:”"),
        ("mailto:someone@example.com", "mailto", "“mailto:”"),
        ("blob:https://example.com/uuid", "blob", "“blob:”"),
        ("about:blank", "about", "“about:”"),
        ("vbscript:msgbox(1)", "vbscript", "“vbscript:”"),
        ("chrome://settings", "chrome", "“chrome:”"),
        ("intent://x#Intent;end", "intent", "“intent:”"),
    ],
)
def test_other_schemes_are_refused(url: str, scheme: str, words: str) -> None:
    check = refused(url)
    assert check.scheme == scheme
    assert words in check.refusal  # type: ignore[operator]
    assert check.redacted == f"{scheme}:…"  # never the payload
    assert check.host == ""


def test_a_very_long_scheme_is_cut_in_the_reason() -> None:
    check = refused("x" * 200 + "://example.com")
    assert len(check.refusal) < 120  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "url, words",
    [
        ("", "empty"),
        ("example.com", "no scheme"),
        ("//example.com/path", "no scheme"),
        ("/relative/path", "no scheme"),
        ("https:example.com", "“//”"),
        ("https:/example.com", "“//”"),
        ("https://", "no host"),
        ("https:///path", "no host"),
        ("https://?q=1", "no host"),
        ("https://user@", "no host"),
        ("https://:443/", "no host"),
        ("https://::1/", "no host"),
        ("https://exa mple.com", "spaces"),
        (" https://example.com", "spaces"),
        ("https://example.com ", "spaces"),
        ("https://example.com/a b", "spaces"),
        ("https://example.com/\tx", "control"),
        ("java\nscript:alert(1)", "line breaks"),
        ("https://example.com/\r\n", "line breaks"),
        ("https://example.com/\x00", "control"),
        ("https://example.com/\x7f", "control"),
        ("https://example.com/\x85", "control"),
        ("https://example.com/\u00a0", "spaces"),
        ("https://example.com/\u2028", "line breaks"),
        ("https://example.com/\u3000", "spaces"),
        ("https://example.com/\ud800", "control"),
        ("https://evil.com\\@good.com/", "backslash"),
        ("https://example.com\\path", "backslash"),
        ("https:\\\\example.com", "backslash"),
        ("https://example.com:abc/", "port"),
        ("https://example.com:99999/", "port"),
        ("https://example.com:65536/", "port"),
        ("https://example.com:-1/", "port"),
        ("https://example.com:1:2/", "port"),
        ("https://example.com:８０/", "port"),
        ("https://example.com:123456/", "port"),
        ("https://[::1/", "closing"),
        ("https://[::1]x/", "between"),
        ("https://[zz::1]/", "IPv6"),
        ("https://[1.2.3.4]/", "IPv6"),
        ("https://[v1.x]/", "IPv6"),
        ("https://[fe80::1%25eth0]/", "zone"),
        ("https://a..b/", "not a valid domain"),
        ("https://.example.com/", "not a valid domain"),
        ("https://example.com../", "not a valid domain"),
        ("https://" + "a" * 64 + ".com/", "not a valid domain"),
        ("https://" + ".".join(["a" * 60] * 5) + "/", "not allowed"),
        ("https://ex!ample.com/", "not allowed"),
        ("https://ex<ample.com/", "not allowed"),
        ("https://ex^ample.com/", "not allowed"),
        ("https://ex*ample.com/", "not allowed"),
        ("https://ex%61mple.com/", "percent-encoded"),
        ("https://0x7f.1/", "number"),
        ("https://0x7f000001/", "number"),
        ("https://2130706433/", "number"),
        ("https://127.1/", "number"),
        ("https://1.2.3.4.5/", "number"),
        ("https://256.1.1.1/", "number"),
        ("https://01.2.3.4/", "number"),
        ("https://example.123/", "number"),
        ("https://xn--zz.com/", "Punycode"),
        ("https://xn--example-.com/", "Punycode"),
        ("https://exa\u200bmple.com/", "invisible"),
        ("https://exa\u200dmple.com/", "invisible"),
        ("https://\ufeffexample.com/", "invisible"),
        ("https://moc.elgoog\u202e.evil/", "direction"),
        ("https://ex\u2066ample.com/", "direction"),
        ("https://ex\u00adample.com/", "invisible"),
        ("https://ex\u2764\ufe0fample.com/", "invisible"),
        ("https://straße.de/", "“ß”"),
        ("https://STRASSE.de/ẞ", None),
        ("https://\u03bb\u03bf\u03b3\u03bf\u03c2.gr/", "“ς”"),
    ],
)
def test_malformed_urls_are_refused_with_a_reason(url: str, words: str | None) -> None:
    if words is None:  # a look-alike of a refused case that is fine
        assert inspect_url(url).allowed
        return
    check = refused(url)
    assert words in check.refusal, check.refusal  # type: ignore[operator]


@pytest.mark.parametrize("value", [None, 42, b"https://example.com", ["https://example.com"]])
def test_a_url_that_is_not_text_is_refused(value: object) -> None:
    check = refused(value)
    assert check.refusal == "The URL is not text."
    assert check.url == ""


def test_a_url_longer_than_8_kib_is_refused() -> None:
    base = "https://example.com/"
    assert allowed(base + "a" * (MAX_URL_LENGTH - len(base))).url
    check = refused(base + "a" * (MAX_URL_LENGTH - len(base) + 1))
    assert "longer than 8192" in check.refusal  # type: ignore[operator]


def test_a_refused_url_keeps_what_is_known_but_never_the_rest() -> None:
    check = refused("http://example.com/reset/ABC?token=SECRET#frag")
    assert check.host == "example.com"
    assert check.redacted == "http://example.com"
    assert "SECRET" not in check.refusal and "SECRET" not in repr(check)  # type: ignore[operator]
    assert check.display_parts == ("", "", check.url)  # shown whole, no host highlighted
    assert refused("no scheme?token=SECRET").redacted == "…"


# -- Punycode and internationalised hosts --------------------------------------------------------------------
def test_a_punycode_host_is_shown_decoded_next_to_the_raw_form() -> None:
    check = allowed("https://xn--bcher-kva.de/shop")
    assert check.host == "xn--bcher-kva.de"
    assert check.host_unicode == "bücher.de"
    assert check.host_ascii is None
    text = warned(check, "Punycode")
    assert "xn--bcher-kva.de" in text and "bücher.de" in text
    assert check.display_parts[1] == "xn--bcher-kva.de"


def test_an_uppercase_punycode_host_is_still_decoded() -> None:
    check = allowed("https://XN--BCHER-KVA.DE/")
    assert check.host_unicode == "bücher.de"
    warned(check, "Punycode", "bücher.de")


def test_a_punycode_look_alike_of_a_latin_name_is_decoded() -> None:
    check = allowed("https://xn--80ak6aa92e.com/")  # Cyrillic "аррӏе.com"
    assert check.host_unicode == "аррӏе.com"
    warned(check, "Punycode", "аррӏе.com")


def test_a_unicode_host_shows_the_ascii_form_the_browser_goes_to() -> None:
    check = allowed("https://bücher.de/")
    assert check.host == "bücher.de"
    assert check.host_ascii == "xn--bcher-kva.de"
    assert check.host_unicode is None
    text = warned(check, "non-ASCII", "xn--bcher-kva.de")
    assert "bücher.de" in text
    assert not any("mixes" in w for w in check.warnings)  # Latin only


def test_fullwidth_letters_are_revealed_by_the_ascii_form() -> None:
    check = allowed("https://ｅｘａｍｐｌｅ.com/")
    assert check.host_ascii == "example.com"
    warned(check, "non-ASCII", "“example.com”")


def test_ideographic_full_stops_are_revealed_by_the_ascii_form() -> None:
    check = allowed("https://google.com\u3002evil.com/")
    assert check.host_ascii == "google.com.evil.com"
    warned(check, "non-ASCII", "google.com.evil.com")


@pytest.mark.parametrize(
    "url, scripts",
    [
        ("https://p\u0430ypal.com/", "Cyrillic and Latin"),  # Cyrillic a
        ("https://xn--pypal-4ve.com/", "Cyrillic and Latin"),  # the same, as Punycode
        ("https://g\u03bfogle.com/", "Greek and Latin"),  # Greek omicron
        ("https://\u0430\u03bf.com/", "Cyrillic and Greek"),
    ],
)
def test_a_host_mixing_look_alike_scripts_is_warned_about(url: str, scripts: str) -> None:
    check = allowed(url)
    warned(check, "mixes", scripts)


@pytest.mark.parametrize("url", ["https://日本語.jp/", "https://bücher.de/", "https://ελληνικά.gr/"])
def test_a_single_script_idn_is_not_called_mixed(url: str) -> None:
    check = allowed(url)
    assert not any("mixes" in w for w in check.warnings)
    assert len(check.warnings) == 1


# -- invisible and direction-changing characters -------------------------------------------------------------
@pytest.mark.parametrize(
    "char", ["\u202e", "\u202d", "\u202a", "\u2066", "\u2067", "\u2068", "\u2069", "\u200f"]
)
@pytest.mark.parametrize("where", ["/path{c}", "/p?q={c}", "/p#{c}", "/{c}gpj.exe"])
def test_bidi_characters_anywhere_but_the_host_are_warned_about_and_made_visible(
    char: str, where: str
) -> None:
    check = allowed("https://example.com" + where.format(c=char))
    text = warned(check, "direction", f"U+{ord(char):04X}")
    assert "⟨U+…⟩" in text
    assert char not in check.display
    assert f"⟨U+{ord(char):04X}⟩" in check.display
    assert check.display_parts[1] == "example.com"


@pytest.mark.parametrize(
    "char", ["\u200b", "\u200c", "\u200d", "\ufeff", "\u2060", "\u00ad", "\u034f", "\ufe0f"]
)
def test_zero_width_characters_are_warned_about_and_made_visible(char: str) -> None:
    check = allowed(f"https://example.com/pa{char}th")
    warned(check, "invisible", f"U+{ord(char):04X}")
    assert check.display == f"https://example.com/pa⟨U+{ord(char):04X}⟩th"
    assert check.redacted == f"https://example.com/pa⟨U+{ord(char):04X}⟩th"


def test_invisible_characters_in_the_credentials_are_warned_about_too() -> None:
    check = allowed("https://goo\u200bgle.com@example.com/")
    warned(check, "invisible", "U+200B")
    warned(check, "user name or password")


def test_both_kinds_of_invisible_characters_give_two_warnings_naming_at_most_three_each() -> None:
    check = allowed("https://example.com/\u202e\u202d\u202a\u2066\u200b\u200c")
    bidi = warned(check, "direction")
    assert bidi.count("U+") == 4  # three named and the ⟨U+…⟩ hint
    warned(check, "invisible characters (U+200B")


def test_visible_marks_only_invisible_characters() -> None:
    assert visible("plain ascii") == "plain ascii"
    assert visible("bücher") == "bücher"
    assert visible("a\u202eb\u200bc") == "a⟨U+202E⟩b⟨U+200B⟩c"


# -- credentials ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url, prefix",
    [
        ("https://user@example.com/", "https://user@"),
        ("https://user:hunter2@example.com/", "https://user:hunter2@"),
        ("https://google.com@example.com/", "https://google.com@"),
        ("https://@example.com/", "https://@"),
        ("https://a@b@example.com/", "https://a@b@"),
        ("https://good.com%2f@example.com/", "https://good.com%2f@"),
    ],
)
def test_credentials_are_warned_about_and_the_real_host_is_named(url: str, prefix: str) -> None:
    check = allowed(url)
    assert check.host == "example.com"
    assert check.display_parts == (prefix, "example.com", "/")
    text = warned(check, "user name or password", "on example.com")
    assert "hunter2" not in text
    assert check.redacted == "https://example.com/"


# -- ports ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    ["https://example.com:443/", "https://example.com:0443/", "http://localhost:80/", "https://x.com:/p"],
)
def test_the_default_port_written_out_is_no_warning(url: str) -> None:
    check = allowed(url)
    assert check.port is None
    assert not any("port" in w for w in check.warnings)
    assert ":" not in check.redacted.split("//", 1)[1]


@pytest.mark.parametrize(
    "url, port, usual",
    [
        ("https://example.com:8443/", 8443, 443),
        ("https://example.com:80/", 80, 443),
        ("https://example.com:0/", 0, 443),
        ("https://example.com:65535/", 65535, 443),
        ("http://localhost:443/", 443, 80),
        ("https://[2001:db8::1]:8443/p?q#f", 8443, 443),
    ],
)
def test_another_port_is_warned_about(url: str, port: int, usual: int) -> None:
    check = allowed(url)
    assert check.port == port
    warned(check, f"port {port} ", f"usual {usual}")
    assert f":{port}/" in check.redacted


# -- IPv6 and trailing dots ----------------------------------------------------------------------------------
def test_ipv6_literals_keep_their_brackets() -> None:
    check = allowed("https://[2001:DB8::1]:8443/p?q=1")
    assert check.host == "[2001:DB8::1]"
    assert check.host_unicode is None and check.host_ascii is None
    assert check.display_parts == ("https://", "[2001:DB8::1]", ":8443/p?q=1")
    assert check.redacted == "https://[2001:DB8::1]:8443/p"


def test_a_single_trailing_dot_is_a_valid_name() -> None:
    check = allowed("https://example.com./path")
    assert check.host == "example.com."
    assert check.warnings == ()
    assert check.redacted == "https://example.com./path"


# -- what logs may keep --------------------------------------------------------------------------------------
_SAFE_PATH = st.text(
    alphabet=st.characters(blacklist_characters="?#\\QZ", blacklist_categories=("Cc", "Cs", "Zs", "Zl", "Zp"))
)
_TOKEN = st.text(alphabet="QZ", min_size=12, max_size=20)  # letters the path never has


@settings(deadline=None)  # no timings in tests: a busy machine is not a failure
@given(path=_SAFE_PATH, query=_TOKEN, fragment=_TOKEN)
def test_the_redacted_form_never_has_the_query_or_fragment(path: str, query: str, fragment: str) -> None:
    url = f"https://example.com/{path}?t={query}#{fragment}"
    check = inspect_url(url)
    if not check.allowed:
        assert "space" in check.refusal  # type: ignore[operator]  # e.g. U+0085 or U+180E counted as space
        return
    assert "?" not in check.redacted and "#" not in check.redacted
    assert query not in check.redacted and fragment not in check.redacted
    for text in (*check.warnings, repr(check)):
        assert query not in text and fragment not in text
    assert check.redacted.startswith("https://example.com/")


@settings(deadline=None)
@given(st.text(max_size=200))
def test_inspect_url_never_raises_on_any_text(text: str) -> None:
    for url in (text, "https://" + text, "http://localhost/" + text, "https://" + text + "/x"):
        check = inspect_url(url)
        assert check.allowed == (check.refusal is None)
        if check.allowed:
            assert check.scheme in ("https", "http")
            assert check.host
            assert "".join(check.display_parts) == visible(url)
            assert check.display_parts[1] == visible(check.host)


def test_the_repr_leaves_out_the_url() -> None:
    check = allowed("https://example.com/path?token=SECRET#frag")
    assert "SECRET" not in repr(check) and "frag" not in repr(check)
    assert "example.com" in repr(check)


def test_url_checks_are_frozen() -> None:
    check = allowed("https://example.com/")
    with pytest.raises(AttributeError):
        check.allowed = False  # type: ignore[misc]


def test_the_url_module_is_pure() -> None:
    tree = ast.parse(Path(urls.__file__).read_text(encoding="utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {
        (n.module or "").split(".")[0]
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom) and not n.level
    }
    assert imported <= set(sys.stdlib_module_names), sorted(imported - set(sys.stdlib_module_names))
    probe = (
        "import mcp_widgets.core.urls as u, sys, json\n"
        "assert u.inspect_url('https://example.com').allowed\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    loaded = set(json.loads(out.stdout.strip().splitlines()[-1]))
    heavy = {"ipywidgets", "ipykernel", "IPython", "mcp", "mcp_types", "comm", "traitlets"}
    assert not loaded & heavy, sorted(loaded & heavy)
