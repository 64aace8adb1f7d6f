// An MCP server written with the TypeScript SDK's high-level McpServer (@modelcontextprotocol/sdk, see
// package.json), for the completion interop tests: a prompt whose arguments use `completable()` and a resource
// template whose variables complete; the second of each narrows by the first, sent as `context.arguments`.
//
//   node complete_server.mjs stdio
//   node complete_server.mjs http PORT   (127.0.0.1; PORT 0 picks a free one; prints "PORT <n>" when ready)

import { randomUUID } from 'node:crypto';
import http from 'node:http';

import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

const TEAMS = {
  Engineering: ['Alice', 'Bob', 'Charlie'],
  Sales: ['David', 'Eve'],
  Support: ['Frank', 'Grace']
};

const departments = (value) => Object.keys(TEAMS).filter((d) => d.startsWith(value));
function names(value, context) {
  const department = context?.arguments?.department;
  const pool = department in TEAMS ? TEAMS[department] : Object.values(TEAMS).flat();
  return pool.filter((n) => n.startsWith(value));
}

function buildServer() {
  const server = new McpServer({ name: 'ts-complete-server', version: '1.0.0' });
  server.registerPrompt(
    'team-greeting',
    {
      description: 'Greet a member of a department.',
      argsSchema: {
        department: completable(z.string().describe('The department'), departments),
        name: completable(z.string().describe('A person in it'), names)
      }
    },
    ({ department, name }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `Hello ${name} of ${department}` } }]
    })
  );
  server.registerResource(
    'team-member',
    new ResourceTemplate('team://{department}/{name}', {
      list: undefined,
      complete: { department: departments, name: names }
    }),
    { description: 'A member of a department.', mimeType: 'text/plain' },
    (uri, { department, name }) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: `${name} works in ${department}` }]
    })
  );
  return server;
}

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

async function serveHttp(port) {
  const sessions = new Map(); // session id -> transport
  const httpServer = http.createServer(async (req, res) => {
    try {
      if (!req.url.startsWith('/mcp')) return reject(res, 404, 'not found');
      const sid = req.headers['mcp-session-id'];
      const body = req.method === 'POST' ? JSON.parse(await readBody(req)) : undefined;
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

const [mode, port] = process.argv.slice(2);
if (mode === 'stdio') {
  await buildServer().connect(new StdioServerTransport());
} else if (mode === 'http') {
  await serveHttp(Number(port ?? 0));
} else {
  process.stderr.write('usage: node complete_server.mjs stdio | http PORT\n');
  process.exit(2);
}
