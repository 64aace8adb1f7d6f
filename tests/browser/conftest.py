"""Fixtures for the real-browser tests: one Jupyter server (JupyterLab, Notebook 7, Voila) and one Chromium
per session, a fresh notebook file and a fresh browser context per test, every kernel ended after each test.

Needs /usr/bin/chromium and the `browser` extra (`bash scripts/browser-deps.sh` installs both); without them
the tests skip and say so.
"""

from __future__ import annotations

import importlib.util
import json
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


class OpenNotebook:
    """Opens fresh notebooks for one test and cleans up after it (pages, contexts, kernels)."""

    def __init__(self, browser: Any, server: LabServer, name: str) -> None:
        self.browser = browser
        self.server = server
        self.name = name
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
        context = self.browser.new_context(viewport={"width": 1280, "height": 1000}, timezone_id=timezone_id)
        context.set_default_timeout(15_000)
        self.contexts.append(context)
        page = context.new_page()
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
        for context in self.contexts:
            context.close()
        for voila in self.voila_servers:
            voila.stop()
        self.server.delete_sessions()
        left = self.server.api("GET", "/api/kernels")
        assert not left, f"kernels still running after the test: {left}"


@pytest.fixture
def open_notebook(
    browser: Any, lab_server: LabServer, request: pytest.FixtureRequest
) -> Iterator[OpenNotebook]:
    """`open_notebook([source, ...], ui=LAB)` opens a new notebook of those code cells, kernel idle."""
    opener = OpenNotebook(browser, lab_server, slug(request.node.name))
    try:
        yield opener
    finally:
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
    """Opens marimo notebooks for one test in browser contexts of their own, light or dark; closes them."""

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.contexts: list[Any] = []
        self.page_errors: list[str] = []

    def __call__(self, url: str, *, color_scheme: str = "light") -> Any:
        context = self.browser.new_context(
            viewport={"width": 1100, "height": 1000}, color_scheme=color_scheme
        )
        context.set_default_timeout(15_000)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: self.page_errors.append(f"{error}\n{error.stack}"))
        page.goto(url)
        return page

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def open_marimo(browser: Any, marimo_server: MarimoServer) -> Iterator[OpenMarimo]:
    """`open_marimo(url, color_scheme=...)`: a page of the marimo server; an uncaught page error fails it."""
    opener = OpenMarimo(browser)
    try:
        yield opener
    finally:
        opener.close()
    assert not opener.page_errors, f"uncaught errors in the page: {opener.page_errors}"
