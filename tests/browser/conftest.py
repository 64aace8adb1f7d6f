"""Fixtures for the real-browser tests: one JupyterLab server and one Chromium per session, a fresh notebook
file and a fresh browser context per test, and every kernel session ended after each test.

Needs /usr/bin/chromium and the `browser` extra (`bash scripts/browser-deps.sh` installs both); without them
the tests skip and say so.
"""

from __future__ import annotations

import importlib.util
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from .harness import CHROMIUM, CHROMIUM_ARGS, ROOT, UI_MS, LabServer, NotebookPage, slug

INSTALL_HINT = "run `bash scripts/browser-deps.sh`"
SCREENSHOTS = ROOT / "docs" / "screenshots"


def _missing() -> str | None:
    if not CHROMIUM.exists():
        return f"no Chromium at {CHROMIUM}: {INSTALL_HINT}"
    if importlib.util.find_spec("playwright") is None:
        return f"playwright is not installed: {INSTALL_HINT}"
    if importlib.util.find_spec("jupyterlab") is None and shutil.which("jupyter-lab") is None:
        return f"jupyterlab is not installed: {INSTALL_HINT}"
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


class OpenNotebook:
    """Opens fresh notebooks for one test and cleans up after it (pages, contexts, kernel sessions)."""

    def __init__(self, browser: Any, server: LabServer, name: str) -> None:
        self.browser = browser
        self.server = server
        self.name = name
        self.contexts: list[Any] = []
        self.page_errors: list[str] = []
        """Uncaught exceptions in any page of this test (a widget view that fails to render shows here)."""
        self.console_errors: list[str] = []

    def __call__(self, cells: Sequence[str], *, suffix: str = "") -> NotebookPage:
        context = self.browser.new_context(viewport={"width": 1280, "height": 1000})
        context.set_default_timeout(15_000)
        self.contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: self.page_errors.append(str(error)))
        page.on("console", lambda msg: self._console(msg))
        path = self.server.write_notebook(f"{self.name}{suffix}", cells)
        started = time.perf_counter()
        notebook = NotebookPage(page, self.server, path).open()
        print(f"[page load to kernel idle {time.perf_counter() - started:.2f} s]", end=" ")
        return notebook

    def _console(self, msg: Any) -> None:
        if msg.type == "error":
            self.console_errors.append(msg.text)

    def close(self) -> None:
        for context in self.contexts:
            context.close()
        self.server.delete_sessions()


@pytest.fixture
def open_notebook(
    browser: Any, lab_server: LabServer, request: pytest.FixtureRequest
) -> Iterator[Callable[..., NotebookPage]]:
    """`open_notebook([source, ...])` opens a new notebook of those code cells, kernel idle."""
    opener = OpenNotebook(browser, lab_server, slug(request.node.name))
    try:
        yield opener
    finally:
        opener.close()
    # An uncaught exception in the page (e.g. a widget view that failed to render) fails the test.
    assert not opener.page_errors, f"uncaught errors in the page: {opener.page_errors}"


@pytest.fixture
def screenshots() -> Path:
    """Where the tests save screenshots for the README."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
