"""The screenshot gallery (`build/gallery/*.png`, never committed) and the layout checks every shot gets.

`shoot(nb, locator, name)` first checks that nothing of ours overflows its box and no button label is cut
(`layout_problems`), then saves `build/gallery/NAME-THEME.png` for a person to judge.
"""

from __future__ import annotations

from typing import Any

from .harness import DARK_THEME, LIGHT_THEME, ROOT, NotebookPage

GALLERY = ROOT / "build" / "gallery"
THEMES = {LIGHT_THEME: "light", DARK_THEME: "dark"}

# Elements whose content is wider than their box (outside scroll containers: a table in a scrolling div
# may be wider), and buttons whose label is cut (wider than the button, or shown with an ellipsis).
LAYOUT_JS = """(root) => {
  const problems = [];
  const name = (el) => el.tagName.toLowerCase() + (el.className && typeof el.className === "string"
    ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  // Scroll containers meant as such: a <pre>, our table's "-scroll" box. Stock widget boxes scroll too
  // (overflow: auto), but content wider than a form's box is exactly what this looks for.
  const scrolls = (el) => ["auto", "scroll"].includes(getComputedStyle(el).overflowX) &&
    (el.tagName === "PRE" || /-scroll(\\s|$)/.test(typeof el.className === "string" ? el.className : ""));
  const inScroller = (el) => {
    for (let e = el.parentElement; e && e !== root.parentElement; e = e.parentElement) {
      if (scrolls(e)) return true;
    }
    return false;
  };
  for (const el of [root, ...root.querySelectorAll("*")]) {
    if (!el.getClientRects().length || scrolls(el) || inScroller(el)) continue;
    if (["INPUT", "TEXTAREA", "SELECT", "OPTION", "svg", "path"].includes(el.tagName)) continue;
    if (el.scrollWidth > el.clientWidth + 1 && el.clientWidth > 0) {
      problems.push(`overflows: ${name(el)} (${el.scrollWidth} > ${el.clientWidth}): ` +
        (el.textContent || "").trim().slice(0, 60));
    }
  }
  for (const button of root.querySelectorAll("button")) {
    if (!button.getClientRects().length) continue;
    const cut = [button, ...button.querySelectorAll("*")].some((el) =>
      el.scrollWidth > el.clientWidth + 1 ||
      (getComputedStyle(el).textOverflow === "ellipsis" && el.scrollWidth > el.clientWidth));
    if (cut) problems.push(`button label cut: ${(button.textContent || "").trim()}`);
  }
  return problems;
}"""


def layout_problems(locator: Any) -> list[str]:
    """What overflows its box or cuts a button label inside `locator` (empty when all is well)."""
    return list(locator.evaluate(LAYOUT_JS))


def shoot(nb: NotebookPage, locator: Any, name: str) -> None:
    """Check the layout of `locator` and save it as `build/gallery/NAME-THEME.png` (the page's theme)."""
    problems = layout_problems(locator)
    assert not problems, f"{name}: {problems}"
    theme = nb.page.locator("body").get_attribute("data-jp-theme-name")
    GALLERY.mkdir(parents=True, exist_ok=True)
    nb.page.mouse.move(0, 0)  # no hover effects or tooltips in the shot
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(GALLERY / f"{name}-{THEMES.get(theme, 'other')}.png"), animations="disabled")


def shoot_in_both_themes(nb: NotebookPage, cards: dict[str, Any], *, end_light: bool = True) -> None:
    """Every card (name -> locator) in the page's theme, then in the other one; then back to the light theme,
    unless `end_light` is False (a test shooting a card in several states leaves the theme as it is between
    them: a theme change restyles the whole page, and three per state were most of such a test's time)."""
    now = nb.page.locator("body").get_attribute("data-jp-theme-name")
    first = DARK_THEME if now == DARK_THEME else LIGHT_THEME
    for theme in (first, LIGHT_THEME if first == DARK_THEME else DARK_THEME):
        if theme != now:
            nb.set_theme(theme)
            now = theme
        for name, locator in cards.items():
            shoot(nb, locator, name)
    if end_light and now != LIGHT_THEME:
        nb.set_theme(LIGHT_THEME)


def _rgba(css: str) -> tuple[float, ...]:
    """A computed CSS colour ("rgb(r, g, b)" or "rgba(r, g, b, a)") as (r, g, b, a)."""
    inside = css[css.index("(") + 1 : css.rindex(")")]
    parts = [float(p) for p in inside.replace("/", ",").replace(",", " ").split()]
    return (*parts[:3], parts[3] if len(parts) > 3 else 1.0)


def _luminance(rgb: tuple[float, ...]) -> float:
    def linear(c: float) -> float:
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(colour: str, background: str) -> float:
    """WCAG's contrast ratio of a computed CSS colour over an opaque background colour (a colour with alpha
    is blended onto the background first, as the page paints it)."""
    fg, bg = _rgba(colour), _rgba(background)
    alpha = fg[3]
    shown = tuple(alpha * f + (1 - alpha) * b for f, b in zip(fg[:3], bg[:3], strict=True))
    light, dark = sorted((_luminance(shown), _luminance(bg)), reverse=True)
    return (light + 0.05) / (dark + 0.05)
