"""Fixtures for the real-browser tests: one Jupyter server (JupyterLab, Notebook 7, Voila) and one Chromium
per session, a fresh notebook file per test, every kernel ended after each test. A test's first JupyterLab
notebook opens in a JupyterLab page kept loaded from an earlier test (`LabPages`), its others in fresh pages.

Needs Debian's headless Chromium (/usr/bin/chromium-headless-shell) and the `browser` extra (`bash
scripts/browser-deps.sh` installs both); without them the tests skip and say so.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from .harness import (
    CHROMIUM,
    CHROMIUM_ARGS,
    LAB,
    ROOT,
    UI_MS,
    LabServer,
    NotebookPage,
    VoilaPage,
    VoilaServer,
    slug,
)
from .marimo_server import MarimoServer

INSTALL_HINT = "run `bash scripts/browser-deps.sh`"
SCREENSHOTS = ROOT / "docs" / "screenshots"
SAVE_STATE = "/lab/api/settings/@jupyter-widgets/jupyterlab-manager:plugin"
"""The settings of ipywidgets' JupyterLab manager, where `saveState` is (off by default)."""


def _missing() -> str | None:
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM}: {INSTALL_HINT}"
    if importlib.util.find_spec("playwright") is None:
        return f"playwright is not installed: {INSTALL_HINT}"
    for module in ("jupyterlab", "notebook", "voila"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed: {INSTALL_HINT}"
    return None


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabServer]:
    reason = _missing()
    if reason:
        pytest.skip(reason)
    server = LabServer(tmp_path_factory.mktemp("jupyterlab"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser(lab_server: LabServer) -> Iterator[Any]:
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=UI_MS)  # Playwright's 5 s default is tight on a loaded 2-core CI machine

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS))
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="session")
def lab_pages(browser: Any, lab_server: LabServer) -> Iterator[LabPages | None]:
    """The JupyterLab page kept between tests (None with MCP_WIDGETS_FRESH_PAGES=1)."""
    pages = LabPages(browser, lab_server) if REUSE_PAGES else None
    try:
        yield pages
    finally:
        if pages is not None:
            pages.drop()


# Notebook 7.6 throws these by itself on start-up, with or without our widgets: its keyboard-shortcut settings
# read a plugin whose settings load lazily, and one of its plugins asks for JupyterLab's file browser.
NOTEBOOK7_OWN_ERRORS = frozenset(
    {
        "Cannot read properties of undefined (reading 'schema')",
        "Command 'filebrowser:open-path' not registered.",
    }
)


def _notebook7_own_error(message: str, stack: str) -> bool:
    """A known Notebook 7 start-up error, thrown with only Notebook 7's own bundle on the stack."""
    frames = [line for line in stack.splitlines() if line.strip().startswith("at ") and "://" in line]
    return message in NOTEBOOK7_OWN_ERRORS and all("/static/notebook/" in line for line in frames)


REUSE_PAGES = os.environ.get("MCP_WIDGETS_FRESH_PAGES") != "1"
"""Keep a JupyterLab page loaded between tests (`LabPages`); MCP_WIDGETS_FRESH_PAGES=1: a fresh page each."""
PAGE_USES = 12
"""Tests one kept page serves before a fresh one is loaded (JupyterLab's page grows a little with each)."""

# What a kept page must look like between tests, as when it was loaded: no notebook or dialog open, the light
# theme, the panels as they were, the page's animation frames its own, one settings epoch (see LabServer.api).
_PAGE_STATE_JS = """() => {
  const app = window.jupyterapp;
  return JSON.stringify({
    documents: Array.from(app.shell.widgets('main')).filter((w) => w.context).length,
    dialogs: document.querySelectorAll('.jp-Dialog').length,
    theme: document.body.dataset.jpThemeName,
    left: app.shell.leftCollapsed, right: app.shell.rightCollapsed, mode: app.shell.mode,
    frames: String(window.requestAnimationFrame).includes('[native code]'),
  });
}"""
_CLOSE_ALL_JS = """() => {
  for (const w of Array.from(window.jupyterapp.shell.widgets('main'))) {
    if (w.context) w.context.model.dirty = false;  // the test's notebook: nothing of it is kept
    w.dispose();
  }
}"""


class LabPages:
    """A JupyterLab page kept loaded from one test to the next, so that a test's first notebook opens in it.

    Loading JupyterLab is most of a browser test's CPU (7-9 CPU-seconds a page on this machine, 2026-12-06),
    opening a notebook in a loaded page about 4. A page is handed on only clean: its test passed, no page
    error came while it was parked, its notebooks closed without one, and it looks as it did when loaded (no
    dialog, the theme, the panels, its own animation frames, the same server settings); else it is closed and
    the next test loads a fresh one, as after `PAGE_USES` tests. Its context's routes and extra pages go with
    the test that made them.
    """

    def __init__(self, browser: Any, server: LabServer) -> None:
        self.browser = browser
        self.server = server
        self.owner: OpenNotebook | None = None
        self.parked: tuple[Any, Any] | None = None
        self.loaded_state = ""
        self.epoch = 0
        self.uses = 0
        self.tainted = False
        self.spare: Any | None = None  # see `lend_spare`

    def new(self, owner: OpenNotebook) -> tuple[Any, Any]:
        """A fresh page that can be kept; its errors go to whichever test holds it.

        A new page, in the context of the parked one where there is one (that page closed): a fresh
        JupyterLab (its own document, state and focus) loaded from a warm cache. Loaded in a new context,
        with nothing cached, it took about twice the CPU (2026-12-06: 7-8.5 CPU-seconds against 3.7-5).
        """
        if self.parked is not None:
            context, old = self.parked
            self.parked = None
            old.close()
            page = context.new_page()
        else:
            context, page = _new_context_page(self.browser)
        page.on("pageerror", self._page_error)
        page.on("console", self._console)
        self.owner, self.uses, self.tainted, self.loaded_state = owner, 1, False, ""
        self.epoch = self.server.settings_epoch
        return context, page

    def take(self, owner: OpenNotebook) -> tuple[Any, Any] | None:
        """The kept page for `owner`'s first notebook, or None: load a fresh one (`new`)."""
        if self.parked is None or self.tainted or self.epoch != self.server.settings_epoch:
            return None
        if self.uses >= PAGE_USES:
            return None
        kept, self.parked = self.parked, None
        self.owner, self.uses = owner, self.uses + 1
        return kept

    def loaded(self, page: Any) -> None:
        """The state a kept page must be back in between tests, read once its first notebook is open."""
        if not self.loaded_state:
            state = json.loads(page.evaluate(_PAGE_STATE_JS))
            state["documents"] = 0
            self.loaded_state = json.dumps(state, separators=(",", ":"))

    def give_back(self, context: Any, page: Any, passed: bool) -> None:
        """At the end of a test: park its page if it can serve the next test, else close it."""
        keep = passed and not self.tainted and self.uses < PAGE_USES and bool(self.loaded_state)
        if keep:
            try:
                for other in context.pages:
                    if other is not page:
                        other.close()
                context.unroute_all(behavior="ignoreErrors")
                page.evaluate(_CLOSE_ALL_JS)
                now = page.evaluate(_PAGE_STATE_JS)
                keep = now == self.loaded_state
                if not keep:
                    print(f"[not kept: {now} after {self.loaded_state}]", end=" ")
            except Exception:  # a page that cannot say it is clean is not
                keep = False
        self.owner = None
        if keep:
            self.parked = (context, page)
        else:
            context.close()

    def drop(self) -> None:
        if self.parked is not None:
            self.parked[0].close()
            self.parked = None
        if self.spare is not None:
            self.spare.close()
            self.spare = None

    def lend_spare(self) -> Any:
        """A second browser context, kept for the session, for one more page of a test at a time (Notebook 7,
        Voila, a second notebook): a fresh page there loads from a warm cache. `return_spare` after."""
        if self.spare is None:
            self.spare = _new_context(self.browser)
        return self.spare

    def return_spare(self, passed: bool) -> None:
        """The test that borrowed the spare context ended: its pages close (and its routes go); after a
        failure the context goes too."""
        if self.spare is None:
            return
        try:
            if not passed:
                raise RuntimeError("not kept after a failed test")
            for page in list(self.spare.pages):
                page.close()
            self.spare.unroute_all(behavior="ignoreErrors")
        except Exception:
            self.spare.close()
            self.spare = None

    def _page_error(self, error: Any) -> None:
        if self.owner is not None:
            self.owner._page_error(error)
        else:
            self.tainted = True  # nobody's test: not handed on

    def _console(self, msg: Any) -> None:
        if self.owner is not None:
            self.owner._console(msg)
        elif msg.type == "error":
            self.tainted = True


def _new_context(browser: Any, timezone_id: str | None = None) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, timezone_id=timezone_id)
    context.set_default_timeout(UI_MS)
    return context


def _new_context_page(browser: Any, timezone_id: str | None = None) -> tuple[Any, Any]:
    context = _new_context(browser, timezone_id)
    return context, context.new_page()


class OpenNotebook:
    """Opens notebooks for one test and cleans up after it (pages, contexts, kernels): the first one in a
    JupyterLab page kept from an earlier test where there is one (`LabPages`), the others in fresh pages."""

    def __init__(self, browser: Any, server: LabServer, name: str, pages: LabPages | None = None) -> None:
        self.browser = browser
        self.server = server
        self.name = name
        self.pages = pages
        self.borrowed = False
        """A page of this test is in the spare context of `pages` (`LabPages.lend_spare`)."""
        self.kept: tuple[Any, Any] | None = None
        """The (context, page) of `pages` this test holds."""
        self.opened = 0
        self.passed = False
        """Set by the fixture once the test passed: only then is its kept page handed on."""
        self.contexts: list[Any] = []
        self.voila_servers: list[VoilaServer] = []
        self.page_errors: list[str] = []
        """Uncaught exceptions in any page of this test (a widget view that fails to render shows here)."""
        self.console_errors: list[str] = []

    def __call__(
        self, cells: Sequence[str], *, suffix: str = "", ui: str = LAB, timezone_id: str | None = None
    ) -> NotebookPage:
        """A new notebook of these code cells open in `ui` (JupyterLab or Notebook 7), kernel idle; with
        `timezone_id` (e.g. "Asia/Kolkata"), the browser's time zone is that one instead of the machine's."""
        path = self.server.write_notebook(f"{self.name}{suffix}", cells)
        started = time.perf_counter()
        first, self.opened = self.opened == 0, self.opened + 1
        if self.pages is not None and first and ui == LAB and timezone_id is None:
            kept = self.pages.take(self)
            if kept is not None:
                self.kept = kept
                notebook = NotebookPage(kept[1], self.server, path, ui).open_in_place()
                took = time.perf_counter() - started
                print(f"[{ui}: opened in a loaded page, kernel idle {took:.2f} s]", end=" ")
                return notebook
            self.kept = self.pages.new(self)
            notebook = NotebookPage(self.kept[1], self.server, path, ui).open()
            self.pages.loaded(self.kept[1])
        else:
            notebook = NotebookPage(self._page(timezone_id), self.server, path, ui).open()
        print(f"[{ui}: page load to kernel idle {time.perf_counter() - started:.2f} s]", end=" ")
        return notebook

    def voila(
        self,
        cells: Sequence[str] = (),
        *,
        copy_of: Path | None = None,
        standalone: bool = False,
        suffix: str = "",
        theme: str | None = None,
    ) -> VoilaPage:
        """A new notebook (these code cells, or a copy of the notebook `copy_of`) rendered by Voila: by the
        Jupyter server's Voila extension, or with `standalone` by a `voila NOTEBOOK` process of its own;
        with `theme` ("light", "dark"), in that theme (Voila reads it from the page's address)."""
        if copy_of is not None:
            path = f"{self.name}{suffix}.ipynb"
            shutil.copyfile(copy_of, self.server.root / path)
        else:
            path = self.server.write_notebook(f"{self.name}{suffix}", cells)
        started = time.perf_counter()
        if standalone:
            voila = VoilaServer(self.server, path)
            self.voila_servers.append(voila)
            voila.start()
            url = voila.url + "/"
        else:
            url = self.server.voila_url(path)
        if theme is not None:
            url += ("&" if "?" in url else "?") + f"theme={theme}"
        page = VoilaPage(self._page(), url).open()
        print(f"[voila: start to widgets {time.perf_counter() - started:.2f} s]", end=" ")
        return page

    def _page(self, timezone_id: str | None = None) -> Any:
        if timezone_id is None and self.pages is not None and not self.borrowed:
            self.borrowed = True  # one page of a test in the spare context; others in contexts of their own
            page = self.pages.lend_spare().new_page()
        else:
            context, page = _new_context_page(self.browser, timezone_id)
            self.contexts.append(context)
        page.on("pageerror", self._page_error)
        page.on("console", lambda msg: self._console(msg))
        return page

    def _page_error(self, error: Any) -> None:
        if not _notebook7_own_error(str(error), str(error.stack or "")):
            self.page_errors.append(f"{error}\n{error.stack}")

    def _console(self, msg: Any) -> None:
        if msg.type == "error":
            self.console_errors.append(msg.text)

    def close(self) -> None:
        if self.kept is not None and self.pages is not None:
            self.pages.give_back(*self.kept, passed=self.passed and not self.page_errors)
            self.kept = None
        if self.borrowed and self.pages is not None:
            self.pages.return_spare(passed=self.passed and not self.page_errors)
            self.borrowed = False
        for context in self.contexts:
            context.close()
        for voila in self.voila_servers:
            voila.stop()
        self.server.delete_sessions()
        left = self.server.api("GET", "/api/kernels")
        assert not left, f"kernels still running after the test: {left}"


@pytest.fixture
def open_notebook(
    browser: Any, lab_server: LabServer, lab_pages: LabPages | None, request: pytest.FixtureRequest
) -> Iterator[OpenNotebook]:
    """`open_notebook([source, ...], ui=LAB)` opens a new notebook of those code cells, kernel idle."""
    opener = OpenNotebook(browser, lab_server, slug(request.node.name), lab_pages)
    try:
        yield opener
    finally:
        call = getattr(request.node, "report_call", None)
        opener.passed = call is not None and call.passed
        opener.close()
    # An uncaught exception in the page (e.g. a widget view that failed to render) fails the test.
    assert not opener.page_errors, f"uncaught errors in the page: {opener.page_errors}"


@pytest.fixture
def saving_widget_state(lab_server: LabServer) -> Iterator[None]:
    """JupyterLab writes the widget state into the notebook when it saves (off by default): the worst case.
    Set through the settings API before the test opens its pages, and back to the default after it."""
    lab_server.api("PUT", SAVE_STATE, {"raw": json.dumps({"saveState": True})})
    try:
        yield
    finally:
        lab_server.api("PUT", SAVE_STATE, {"raw": "{}"})


@pytest.fixture
def open_voila(open_notebook: OpenNotebook) -> Callable[..., VoilaPage]:
    """`open_voila([source, ...])` or `open_voila(copy_of=path)`: a new notebook rendered by Voila."""
    return open_notebook.voila


@pytest.fixture
def screenshots() -> Path:
    """Where the tests save screenshots for the README and docs/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS


@pytest.fixture(scope="session")
def marimo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MarimoServer]:
    """One `marimo edit` server for every marimo test of the session (its notebooks run when opened)."""
    reason = _missing()
    if reason:
        pytest.skip(reason)
    server = MarimoServer(tmp_path_factory.mktemp("marimo"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


class OpenMarimo:
    """Opens marimo notebooks for one test, light or dark, each in a page of its own; closes them.

    The pages open in one browser context per color scheme, kept for the session (`warm`): each is a fresh
    marimo page loaded from a warm cache. A test that fails takes its contexts with it.
    """

    def __init__(self, browser: Any, warm: dict[str, Any]) -> None:
        self.browser = browser
        self.warm = warm
        self.pages: list[Any] = []
        self.page_errors: list[str] = []

    def __call__(self, url: str, *, color_scheme: str = "light") -> Any:
        context = self.warm.get(color_scheme)
        if context is None:
            context = self.browser.new_context(
                viewport={"width": 1100, "height": 1000}, color_scheme=color_scheme
            )
            context.set_default_timeout(UI_MS)
            self.warm[color_scheme] = context
        page = context.new_page()
        self.pages.append(page)
        page.on("pageerror", lambda error: self.page_errors.append(f"{error}\n{error.stack}"))
        page.goto(url)
        return page

    def close(self, passed: bool) -> None:
        for scheme, context in list(self.warm.items()):
            if not any(page.context is context for page in self.pages):
                continue
            if passed:
                for page in list(context.pages):  # the test's pages, and any it opened
                    page.close()
                context.unroute_all(behavior="ignoreErrors")
            else:
                del self.warm[scheme]
                context.close()


@pytest.fixture(scope="session")
def marimo_contexts(browser: Any) -> Iterator[dict[str, Any]]:
    """The browser contexts marimo pages open in, one per color scheme (`OpenMarimo`)."""
    made: dict[str, Any] = {}
    try:
        yield made
    finally:
        for context in made.values():
            context.close()


@pytest.fixture
def open_marimo(
    browser: Any, marimo_server: MarimoServer, marimo_contexts: dict[str, Any], request: pytest.FixtureRequest
) -> Iterator[OpenMarimo]:
    """`open_marimo(url, color_scheme=...)`: a page of the marimo server; an uncaught page error fails it."""
    opener = OpenMarimo(browser, marimo_contexts)
    try:
        yield opener
    finally:
        call = getattr(request.node, "report_call", None)
        opener.close(passed=call is not None and call.passed and not opener.page_errors)
    assert not opener.page_errors, f"uncaught errors in the page: {opener.page_errors}"
