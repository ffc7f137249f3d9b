import type { Client } from '@modelcontextprotocol/client';

type Answer = Record<string, any>;

/** The tasks extension's capability, as a client declares it per request. */
export const TASKS_CAPABILITY = { extensions: { 'io.modelcontextprotocol/tasks': {} } };

/** A result schema that takes any result (tasks/get's DetailedTask is checked by the tests themselves). */
const ANY = { '~standard': { version: 1 as const, vendor: 'workgraph-e2e', validate: (value: unknown) => ({ value: value as Answer }) } };

/**
 * Calls a tool expecting the tasks extension's CreateTaskResult. The SDK's v2 client has no client side for the
 * extension: it refuses a `resultType: "task"` answer as an unsupported result type. So the answer is read from the
 * client's own transport as it arrives (the SDK still sends the request: envelope, headers, capabilities), and the
 * refusal is checked to be exactly that one.
 */
export async function callAsTask(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const transport = client.transport!;
  const receive = transport.onmessage!;
  let task: Answer | undefined;
  transport.onmessage = (message, extra) => {
    const result = (message as { result?: Answer }).result;
    if (result?.resultType === 'task') task = result;
    receive.call(transport, message, extra);
  };
  try {
    const outcome = await client.callTool({ name, arguments: args }, { timeout: 60_000 }).then(
      (r) => r,
      (e: Error) => e,
    );
    if (!task) throw new Error(`expected a CreateTaskResult, got ${outcome instanceof Error ? outcome.message : JSON.stringify(outcome)}`);
    expect(String(outcome)).toMatch(/Unsupported result type 'task'/);
    return task;
  } finally {
    transport.onmessage = receive;
  }
}

export const getTask = (client: Client, taskId: string): Promise<Answer> => client.request({ method: 'tasks/get', params: { taskId } }, ANY) as Promise<Answer>;
export const cancelTask = (client: Client, taskId: string): Promise<Answer> => client.request({ method: 'tasks/cancel', params: { taskId } }, ANY) as Promise<Answer>;
export const updateTask = (client: Client, taskId: string, inputResponses: Record<string, unknown>): Promise<Answer> =>
  client.request({ method: 'tasks/update', params: { taskId, inputResponses } }, ANY) as Promise<Answer>;

/** Polls tasks/get (at the task's pollIntervalMs) until the task is terminal; returns it and every statusMessage seen. */
export async function untilTerminal(client: Client, taskId: string, timeoutMs = 60_000): Promise<{ task: Answer; messages: string[] }> {
  const messages: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await getTask(client, taskId);
    if (task.statusMessage && messages[messages.length - 1] !== task.statusMessage) messages.push(task.statusMessage);
    if (!['working', 'input_required'].includes(task.status)) return { task, messages };
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, Math.min(task.pollIntervalMs ?? 500, 500)));
  }
}
