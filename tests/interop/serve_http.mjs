// Streamable HTTP for the interop test servers: one MCP server per session, on 127.0.0.1 at `port` (0 picks
// a free one), printing "PORT <n>" once it listens and exiting on SIGTERM or SIGINT.
//
//   serveHttp(port, buildServer, onText)   buildServer() makes a new server; onText(text) sees each POST body

import { randomUUID } from 'node:crypto';
import http from 'node:http';

import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function reject(res, status, message) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export async function serveHttp(port, buildServer, onText = () => {}) {
  const sessions = new Map(); // session id -> transport
  const httpServer = http.createServer(async (req, res) => {
    try {
      if (!req.url.startsWith('/mcp')) return reject(res, 404, 'not found');
      const sid = req.headers['mcp-session-id'];
      let body;
      if (req.method === 'POST') {
        const text = await readBody(req);
        onText(text);
        body = JSON.parse(text);
      }
      if (sid && sessions.has(sid)) return await sessions.get(sid).handleRequest(req, res, body);
      if (!sid && req.method === 'POST' && isInitializeRequest(body)) {
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => sessions.set(id, transport)
        });
        transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
        await buildServer().connect(transport);
        return await transport.handleRequest(req, res, body);
      }
      return reject(res, 400, 'no valid session: send initialize first');
    } catch (error) {
      if (!res.headersSent) reject(res, 500, String(error));
    }
  });
  httpServer.listen(port, '127.0.0.1', () => {
    process.stdout.write(`PORT ${httpServer.address().port}\n`);
  });
  const stop = () => httpServer.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
