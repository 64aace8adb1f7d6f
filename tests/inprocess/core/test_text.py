"""Server text shown literally: visible escapes for what could disguise it, clipping that says how much."""

from __future__ import annotations

import pytest

from mcp_widgets.core.text import clip_line, clip_words, shown


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H"),  # clear the screen, cursor home
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),  # OSC: set the window title
        ("bell\x07 nul\x00 del\x7f", "bell\\x07 nul\\x00 del\\x7f"),
        ("csi\x9b2J", "csi\\x9b2J"),  # the C1 form of ESC [
        ("ok\rFAKE", "ok\\x0dFAKE"),  # a lone carriage return overwrites the line on a terminal
        ("evil\u202etxt.exe", "evilU+202Etxt.exe"),  # right-to-left override
        ("a\u2066b\u2069c\u200fd", "aU+2066bU+2069cU+200Fd"),  # isolates and marks
        ("zero\u200bwidth\ufeff\u2060", "zeroU+200BwidthU+FEFFU+2060"),
        ("tag\U000e0041", "tagU+E0041"),  # an invisible copy of "A"
        ("line\u2028break", "lineU+2028break"),
    ],
)
def test_shown_writes_disguising_characters_as_visible_escapes(text: str, expected: str) -> None:
    assert shown(text) == expected


def test_shown_keeps_text_newlines_and_tabs() -> None:
    assert shown("Grüße, 東京 $5 <b>x</b> \\href{a}{b}") == "Grüße, 東京 $5 <b>x</b> \\href{a}{b}"
    assert shown("a\n\tb\r\nc") == "a\n\tb\nc"  # CR LF is a newline
    assert shown("a\n\tb", multiline=False) == "a\\x0a\\x09b"
    assert shown(42) == "42"


def test_clip_line_says_how_much_is_left_out() -> None:
    assert clip_line("abcdef", 6) == "abcdef"
    assert clip_line("abcdefg", 6) == "abcdef… (1 more character)"
    assert clip_line("x" * 2_000_000, 2000) == "x" * 2000 + "… (1998000 more characters)"
    assert clip_line("word " * 10, 9) == "word word… (40 more characters)"  # counted on the one line shown


def test_clip_line_is_one_shown_line() -> None:
    assert clip_line("a\n\n b\x1b[31m c", 100) == "a b\\x1b[31m c"


def test_clip_words_cuts_after_a_whole_word() -> None:
    text = "looks a city up, then reads its weather and its tides"
    assert clip_words(text, 100) == text
    assert clip_words(text, 30) == "looks a city up, then reads…"
    assert len(clip_words(text, 30)) <= 30
    assert clip_words("x" * 80, 20) == "x" * 19 + "…"  # one long word: cut inside it
