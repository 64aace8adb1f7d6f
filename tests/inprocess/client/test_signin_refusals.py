"""Every refusal the SDK's OAuth flow can make ends as one `SignInError` saying what was refused and why, with
no traceback on stderr (issue 32): against `tests/servers/oauth_refused.py`, one broken step per case.

Run in plain python, in a process of its own, as a person would: stderr is exactly what they would see.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.servers import ROOT
from tests.servers.oauth_refused import CASES, SECRET

ROOT = ROOT

SCRIPT = """
import json, sys, threading, urllib.request
sys.path.insert(0, {root!r})
import mcp_widgets as mw
from tests.servers.launch import serving

async def consent(card):  # the person signs in; the browser follows the authorization address
    card.accept()
    threading.Thread(target=lambda: urllib.request.urlopen(card.authorization_url, timeout=10).read(),
                     daemon=True).start()

with serving([sys.executable, {server!r}], "the refusing server") as (port, _):
    for case in {cases!r}:
        try:
            url = f"http://127.0.0.1:{{port}}/{{case}}/mcp"
            mw.connect_sync(url, name="lab", handler=consent, timeout=30)
            got = ["connected", ""]
        except Exception as exc:
            got = [type(exc).__name__, str(exc)]
        print(json.dumps([case, *got]), flush=True)
"""
WHY = {
    "issuer": "the authorization server's metadata names the issuer http://127.0.0.1:{port}/impostor, not "
    "http://127.0.0.1:{port}/issuer/as",
    "resource": "the server's protected resource metadata is for https://elsewhere.example/mcp, not "
    "http://127.0.0.1:{port}/resource/mcp",
    "prm-500": "its protected resource metadata could not be read (HTTP 500)",
    "register": "the authorization server refused to register this notebook (HTTP 400)",
    "register-garbage": "the authorization server's answer to registering this notebook is not valid",
    "token": "the authorization server did not issue a token (HTTP 400)",
}


@pytest.mark.timeout(180)
def test_each_refusal_is_one_sign_in_error_and_no_traceback() -> None:
    server = str(ROOT / "tests" / "servers" / "oauth_refused.py")
    script = SCRIPT.format(root=str(ROOT), server=server, cases=list(CASES))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=170)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stderr == ""  # no "OAuth flow error", no traceback, printed once or twice
    ended = {case: (kind, text) for case, kind, text in map(json.loads, proc.stdout.splitlines())}
    assert set(ended) == set(CASES)
    for case, (kind, text) in ended.items():
        assert kind == "SignInError", (case, kind, text)
        assert text.startswith("signing in to 'lab' failed: "), (case, text)
        why = text.removeprefix("signing in to 'lab' failed: ")
        port = text.split("127.0.0.1:")[1].split("/")[0] if "127.0.0.1:" in text else ""
        assert why.startswith(WHY[case].format(port=port)), (case, text)
        assert SECRET not in text and "Traceback" not in text
    assert SECRET not in proc.stdout
