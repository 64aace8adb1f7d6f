"""What a person reads when a server fails to start or to speak MCP (#31): the first stdout line that is
not JSON-RPC (at once, not after the timeout), an HTTP status with its body's first line, a TLS reason.

The connect timeouts here are far longer than the test's own timeout: a connect that waits them out
fails the test."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from mcp_widgets import ConnectError, connect_sync

pytestmark = [pytest.mark.usefixtures("clean_client"), pytest.mark.timeout(60)]

LONG = 600.0


def test_a_banner_on_stdout_fails_at_once_quoting_the_line() -> None:
    banner = "import sys, time; print('Welcome to weather-server v1.2!'); sys.stdout.flush(); time.sleep(600)"
    with pytest.raises(ConnectError) as raised:
        connect_sync([sys.executable, "-c", banner], timeout=LONG)
    text = str(raised.value)
    assert "not JSON-RPC: 'Welcome to weather-server v1.2!'" in text
    assert "logs and banners go to stderr" in text


def test_json_that_is_not_json_rpc_is_quoted_too() -> None:
    script = 'import sys, time; print(\'{"status": "ready"}\', flush=True); time.sleep(600)'
    with pytest.raises(ConnectError, match=r"""not JSON-RPC: '\{"status": "ready"\}'"""):
        connect_sync([sys.executable, "-c", script], timeout=LONG)


def test_a_server_that_exits_shows_its_stderr() -> None:
    script = "import sys; sys.stderr.write('missing API_KEY\\n'); sys.exit(3)"
    with pytest.raises(ConnectError, match=r"(?s)server stderr \(last lines\):\nmissing API_KEY"):
        connect_sync([sys.executable, "-c", script], timeout=LONG)


class _Refusing(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = b"\n  Service down for maintenance until 04:00\nsecond line\n"
        self.send_response(503)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def refusing() -> Iterator[int]:
    server = HTTPServer(("127.0.0.1", 0), _Refusing)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_an_http_error_shows_its_status_and_the_bodys_first_line(refusing: int) -> None:
    with pytest.raises(ConnectError) as raised:
        connect_sync(f"http://127.0.0.1:{refusing}/mcp", timeout=LONG)
    assert "HTTP 503 Service Unavailable: 'Service down for maintenance until 04:00'" in str(raised.value)
    assert "second line" not in str(raised.value)


def test_a_tls_failure_says_why(refusing: int) -> None:
    reason = r"TLS failed: .*\[SSL: WRONG_VERSION_NUMBER\] wrong version number"
    with pytest.raises(ConnectError, match=reason):
        connect_sync(f"https://127.0.0.1:{refusing}/mcp", timeout=LONG)
