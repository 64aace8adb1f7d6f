// A TypeScript-SDK server whose tools run as 2025-11-25 tasks (the SDK's experimental task API), for the
// task interop tests:
//
//   ask_required   execution.taskSupport "required": only callable as a task
//   ask_optional   execution.taskSupport "optional": a task when the client asks, else a plain call (the SDK
//                  then runs the task itself and waits for it)
//   ask_plain      an ordinary tool asking with a plain elicitation/create
//   wait_a_while   answers after 3 s, asking nothing
//   task_states    JSON text {taskId: status} of every task made so far (by any connection)
//
// Each asking tool reports "working", then asks one question (name, a string): inside a task the question
// is queued with the task's related-task metadata, the task turns input_required, and the client receives
// the question through tasks/result; the final result echoes {"action", "content"} as JSON text.
//
//   node tasks_server.mjs stdio [REQUEST_TIMEOUT_MS]
//   node tasks_server.mjs http PORT [REQUEST_TIMEOUT_MS]   (127.0.0.1; prints "PORT <n>" when ready)
//
// REQUEST_TIMEOUT_MS (default 60000, the SDK's own default) bounds a plain elicitation/create. A task's
// question waits as long as the task lives (its ttl): that is the point of asking through a task.

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';

import { serveHttp } from './serve_http.mjs';

const POLL_INTERVAL_MS = 200;
const QUESTION = {
  message: 'What is your name?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] }
};

function echo(result) {
  return { content: [{ type: 'text', text: JSON.stringify({ action: result.action, content: result.content ?? null }) }] };
}

// One store for the process: task_states on a new connection reports the tasks of an earlier one.
const store = new InMemoryTaskStore();

function buildServer(requestTimeoutMs) {
  const server = new McpServer(
    { name: 'ts-tasks-server', version: '1.0.0' },
    {
      capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: store,
      taskMessageQueue: new InMemoryTaskMessageQueue()
    }
  );

  // The task's work, after tools/call has answered CreateTaskResult. `asTask` false: the SDK runs an
  // optional tool's task itself for a plain call, and nobody calls tasks/result, so ask the plain way.
  async function work(task, taskStore, extra, asTask) {
    const taskId = task.taskId;
    try {
      await taskStore.updateTaskStatus(taskId, 'working', 'Preparing the question');
      await new Promise((resolve) => setTimeout(resolve, 2 * POLL_INTERVAL_MS));
      let answer;
      if (asTask) {
        await taskStore.updateTaskStatus(taskId, 'input_required', 'Waiting for your name');
        answer = await server.server.elicitInput(QUESTION, {
          relatedTask: { taskId },
          timeout: task.ttl ?? 24 * 3600 * 1000
        });
        await taskStore.updateTaskStatus(taskId, 'working', 'Got the answer');
        // Some work after the answer: a client cancelling as it answers finds the task still running.
        await new Promise((resolve) => setTimeout(resolve, 2 * POLL_INTERVAL_MS));
      } else {
        answer = await extra.sendRequest(
          { method: 'elicitation/create', params: { mode: 'form', ...QUESTION } },
          ElicitResultSchema,
          { timeout: requestTimeoutMs }
        );
      }
      await taskStore.storeTaskResult(taskId, 'completed', echo(answer));
    } catch (error) {
      const current = await taskStore.getTask(taskId).catch(() => null);
      if (current && !['completed', 'failed', 'cancelled'].includes(current.status)) {
        await taskStore
          .storeTaskResult(taskId, 'failed', { isError: true, content: [{ type: 'text', text: `failed: ${error.message}` }] })
          .catch(() => {});
      }
    }
  }

  const handler = {
    async createTask(extra) {
      const asTask = extra.taskRequestedTtl !== undefined;
      const task = await extra.taskStore.createTask({ ttl: extra.taskRequestedTtl, pollInterval: POLL_INTERVAL_MS });
      work(task, extra.taskStore, extra, asTask);
      return { task };
    },
    async getTask(extra) {
      return await extra.taskStore.getTask(extra.taskId);
    },
    async getTaskResult(extra) {
      return await extra.taskStore.getTaskResult(extra.taskId);
    }
  };
  server.experimental.tasks.registerToolTask(
    'ask_required',
    { description: 'Ask for a name, as a task (task-augmented calls only).', execution: { taskSupport: 'required' } },
    handler
  );
  server.experimental.tasks.registerToolTask(
    'ask_optional',
    { description: 'Ask for a name, as a task when the client asks for one.', execution: { taskSupport: 'optional' } },
    handler
  );
  server.registerTool('ask_plain', { description: 'Ask for a name with a plain elicitation.' }, async (extra) => {
    try {
      const answer = await extra.sendRequest(
        { method: 'elicitation/create', params: { mode: 'form', ...QUESTION } },
        ElicitResultSchema,
        { timeout: requestTimeoutMs }
      );
      return echo(answer);
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: `elicitation failed: ${error.message}` }] };
    }
  });
  server.registerTool('wait_a_while', { description: 'Answer after 3 s; asks nothing.' }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 3000));
    return { content: [{ type: 'text', text: 'waited' }] };
  });
  server.registerTool('task_states', { description: 'The status of every task, by id (JSON).' }, async () => {
    const states = Object.fromEntries(store.getAllTasks().map((t) => [t.taskId, t.status]));
    return { content: [{ type: 'text', text: JSON.stringify(states) }] };
  });
  return server;
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'stdio') {
  await buildServer(Number(rest[0] ?? 60000)).connect(new StdioServerTransport());
  // A question may wait as long as its task lives: without this, a client that died without closing
  // (a killed kernel) would leave this process behind until then.
  process.stdin.on('end', () => process.exit(0));
} else if (mode === 'http') {
  const timeout = Number(rest[1] ?? 60000);
  await serveHttp(Number(rest[0] ?? 0), () => buildServer(timeout));
} else {
  process.stderr.write('usage: node tasks_server.mjs stdio [REQUEST_TIMEOUT_MS] | http PORT [REQUEST_TIMEOUT_MS]\n');
  process.exit(2);
}
