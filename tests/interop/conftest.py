"""The sign-in rig (tests/servers/oauth): a real authorization server, a protected MCP server and a browser,
one of each per test module that asks for them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.servers.oauth.rig import Browser, authorization_server, protected_server


@pytest.fixture(scope="module")
def issuer() -> Iterator[str]:
    with authorization_server() as url:
        yield url


@pytest.fixture(scope="module")
def mcp_url(issuer: str) -> Iterator[str]:
    with protected_server(issuer) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with Browser() as person:
        yield person
