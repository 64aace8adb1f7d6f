// An MCP server written with the TypeScript SDK (@modelcontextprotocol/sdk, see package.json), for the
// interop tests: its tool `elicit` sends an elicitation of a named shape and echoes what came back;
// `elicit_url` asks in URL mode.
//
//   node server.mjs stdio
//   node server.mjs http PORT        (127.0.0.1; PORT 0 picks a free one; prints "PORT <n>" when ready)
//
// The echo is JSON text: {"action", "content", "raw"}, where "raw" is the client's JSON-RPC response exactly
// as it arrived on the wire, so the test can check number types (30 vs 30.0) that JSON.parse would erase.
// The SDK itself validates accepted content against the requested schema (ajv, formats on): content that
// does not match comes back as an error result naming the rule.

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { serveHttp } from './serve_http.mjs';

// The forms, shared with mcpserver.py: every primitive the 2025-11-25 spec allows and the five enum shapes.
const SHAPES = JSON.parse(readFileSync(new URL('./shapes.json', import.meta.url), 'utf8'));
delete SHAPES._comment;
SHAPES.everything = {
  properties: { ...SHAPES.strings.properties, ...SHAPES.numbers.properties, ...SHAPES.enums.properties },
  required: Object.keys(SHAPES.strings.properties)
};

function schemaFor(shape) {
  const { properties, required } = SHAPES[shape];
  return { type: 'object', title: `The ${shape} form`, properties, required };
}

// Raw inbound JSON-RPC texts (most recent last), to echo the client's response as it was sent.
const inbound = [];
function remember(text) {
  inbound.push(text);
  if (inbound.length > 50) inbound.shift();
}
function rawResponse(action) {
  // The most recent inbound text holding a response with this action, exactly as it arrived.
  for (let i = inbound.length - 1; i >= 0; i--) {
    let message;
    try {
      message = JSON.parse(inbound[i]);
    } catch {
      continue;
    }
    const messages = Array.isArray(message) ? message : [message];
    if (messages.some((m) => m && m.method === undefined && m.result?.action === action)) return inbound[i];
  }
  return null;
}

function buildServer() {
  const server = new Server(
    { name: 'ts-interop-server', version: '1.0.0' },
    { capabilities: { tools: {} } }
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'elicit',
        description: 'Ask for a form of the given shape; echo the answer as JSON text.',
        inputSchema: {
          type: 'object',
          properties: {
            shape: { type: 'string', enum: Object.keys(SHAPES) },
            timeout_ms: { type: 'integer', description: 'Give up (notifications/cancelled) after this long' }
          },
          required: ['shape']
        }
      },
      {
        name: 'elicit_url',
        description: 'Ask the client to open a URL (URL mode); echo the action as JSON text.',
        inputSchema: { type: 'object', properties: {} }
      }
    ]
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = request.params.arguments ?? {};
    if (request.params.name === 'elicit_url') {
      try {
        const result = await server.elicitInput({
          mode: 'url',
          message: 'Please sign in',
          url: 'https://example.org/sign-in',
          elicitationId: randomUUID()
        });
        return { content: [{ type: 'text', text: JSON.stringify({ action: result.action }) }] };
      } catch (error) {
        return { isError: true, content: [{ type: 'text', text: `elicitation failed: ${error.message}` }] };
      }
    }
    const shape = args.shape;
    if (request.params.name !== 'elicit' || !(shape in SHAPES)) {
      return { isError: true, content: [{ type: 'text', text: `unknown tool or shape: ${shape}` }] };
    }
    try {
      const options = args.timeout_ms ? { timeout: args.timeout_ms } : undefined;
      const result = await server.elicitInput(
        { message: `Please fill in the ${shape} form`, requestedSchema: schemaFor(shape) },
        options
      );
      const raw = rawResponse(result.action);
      const echo = { action: result.action, content: result.content ?? null, raw };
      return { content: [{ type: 'text', text: JSON.stringify(echo) }] };
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: `elicitation failed: ${error.message}` }] };
    }
  });
  return server;
}

async function serveStdio() {
  // A tee in front of stdin keeps every raw line the client sends.
  const tee = new PassThrough();
  let pending = '';
  process.stdin.on('data', (chunk) => {
    pending += chunk.toString('utf8');
    let newline;
    while ((newline = pending.indexOf('\n')) >= 0) {
      remember(pending.slice(0, newline).replace(/\r$/, ''));
      pending = pending.slice(newline + 1);
    }
    tee.write(chunk);
  });
  process.stdin.on('end', () => tee.end());
  await buildServer().connect(new StdioServerTransport(tee, process.stdout));
}

const [mode, port] = process.argv.slice(2);
if (mode === 'stdio') {
  await serveStdio();
} else if (mode === 'http') {
  await serveHttp(Number(port ?? 0), buildServer, remember);
} else {
  process.stderr.write('usage: node server.mjs stdio | http PORT\n');
  process.exit(2);
}
