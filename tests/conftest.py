"""Suite-wide settings.

`scripts/test.sh` (the README's test command, and so CI) installs every outside part the tests need:
Chromium, the older ipykernel venvs, Node and the conformance suite. There it sets MCP_WIDGETS_STRICT=1,
and a test that skips for a missing part fails instead, so that a broken install step cannot pass as green.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Generator, Iterator

import pytest

STRICT = os.environ.get("MCP_WIDGETS_STRICT") == "1"


@pytest.fixture(autouse=True)
def no_pending_list_left_open() -> Iterator[None]:
    """A `mw.pending()` list a test leaves open keeps refreshing (once a second) for the rest of the
    process, making rows for later tests' questions: those tests would find models they never made."""
    yield
    if "mcp_widgets.client.questions.pending" in sys.modules:
        from mcp_widgets.client.questions import pending as open_questions

        for listed in list(open_questions._LISTS.values()):
            listed.close()


@pytest.fixture
def clean_client(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No default handler before or after the test (nor from the environment), and no request left pending."""
    from mcp_widgets.client import set_default_handler
    from mcp_widgets.core.requests import pending_requests

    monkeypatch.delenv("MCP_WIDGETS_HANDLER", raising=False)
    set_default_handler(None)
    yield
    set_default_handler(None)
    assert pending_requests() == [], "a request was left pending"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, None, None]:
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)  # fixtures that reuse a kernel ask how the case went
    if STRICT and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.longrepr = f"skipped under MCP_WIDGETS_STRICT=1 (an install step is missing?): {reason}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the real-browser tests last.

    Playwright's sync API keeps an event loop running on the main thread for as long as its (session-scoped)
    browser lives, and `asyncio.run` refuses to start under a running loop: tests after it would fail for a
    reason that has nothing to do with them.
    """
    items.sort(key=_browser_order)


def _browser_order(item: pytest.Item) -> int:
    if item.get_closest_marker("browser") is None:
        return 0
    # Browser tests elsewhere start and stop a Playwright of their own: before the shared one starts.
    return 2 if item.nodeid.startswith("tests/browser/") else 1


_RERUNS: list[tuple[str, str]] = []
"""(test, its failure's text) for each try that failed and was run again (`--reruns`)."""


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.outcome == "rerun":  # pytest-rerunfailures' outcome for a try it runs again
        _RERUNS.append((report.nodeid, report.longreprtext))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Why each rerun failed (the summary names them only): a flake that passed on its next try is still
    a flake to fix, and CI's log is the only place a loaded machine's failure shows."""
    if not _RERUNS:
        return
    terminalreporter.section("why each rerun failed (the last lines of each try's failure)")
    for nodeid, text in _RERUNS:
        terminalreporter.write_line(nodeid)
        for line in text.splitlines()[-30:]:
            terminalreporter.write_line(f"    {line}")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    pool = sys.modules.get("tests.kernel.pool")
    if pool is not None:  # spare kernels started for tests that did not come
        pool.shut_down()
