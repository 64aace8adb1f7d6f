// An MCP server written with the TypeScript SDK's high-level McpServer (@modelcontextprotocol/sdk, see
// package.json), for the completion interop tests: a prompt whose arguments use `completable()` and a resource
// template whose variables complete; the second of each narrows by the first, sent as `context.arguments`.
//
//   node complete_server.mjs stdio
//   node complete_server.mjs http PORT   (127.0.0.1; PORT 0 picks a free one; prints "PORT <n>" when ready)

import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

import { serveHttp } from './serve_http.mjs';

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

const [mode, port] = process.argv.slice(2);
if (mode === 'stdio') {
  await buildServer().connect(new StdioServerTransport());
} else if (mode === 'http') {
  await serveHttp(Number(port ?? 0), buildServer);
} else {
  process.stderr.write('usage: node complete_server.mjs stdio | http PORT\n');
  process.exit(2);
}
