import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { silentLogger } from '../../../src/kernel/logger';
import { InputRequest } from '../../../src/kernel/call-input';
import { ExtensionTasks } from '../../../src/server/tasks-extension/extension-tasks';
import { FileExtensionTaskStore } from '../../../src/server/tasks-extension/file-extension-task-store';
import { inputSeam, requestStateCodec } from '../../../src/server/input-required';

/**
 * The modern era's state in the data dir, below the protocol: the tasks extension's tasks (expiry, another identity's
 * task, a task whose instance died) and the requestState seam (expired, foreign-key and re-bound states refused; an
 * answer counts only for the subject asked about). The e2e tests drive the same through the built server.
 */
describe('tasks extension state and requestState', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-proto-state-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const run = (result: Record<string, unknown>, ms = 0) => ({
    tool: 'slow_tool',
    owner: 'alice',
    run: (signal: AbortSignal, progress: (m: string) => void) =>
      new Promise<Record<string, unknown>>((resolve) => {
        progress('half way');
        const t = setTimeout(() => resolve(result), ms);
        t.unref();
        signal.addEventListener('abort', () => (clearTimeout(t), resolve({ content: [], isError: true })));
      }),
  });

  it('a task is found by its owner only, answers its result, and expires after its TTL', async () => {
    let now = Date.now();
    const tasks = new ExtensionTasks(() => new FileExtensionTaskStore(dir), silentLogger, { ttlMs: 60_000, pollIntervalMs: 20 }, () => now);
    const created = await tasks.start(run({ content: [{ type: 'text', text: 'ok' }] }));
    await expect(tasks.get(created.taskId, 'mallory')).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Task not found') });
    await expect(tasks.cancel(created.taskId, 'mallory')).rejects.toMatchObject({ code: -32602 });
    for (let i = 0; i < 100 && (await tasks.get(created.taskId, 'alice')).status === 'working'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await tasks.get(created.taskId, 'alice')).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'ok' }] } });
    now += 60_001;
    await expect(tasks.get(created.taskId, 'alice')).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Task has expired') });
    // Expired tasks are removed from the data dir.
    expect(fs.readdirSync(path.join(dir, 'protocol', 'tasks'))).toEqual([]);
    await expect(tasks.get('../../etc/passwd', 'alice')).rejects.toMatchObject({ code: -32602 });
  });

  it('expired tasks nobody asks about are purged when a later task is created', async () => {
    let now = Date.now();
    const tasks = new ExtensionTasks(() => new FileExtensionTaskStore(dir), silentLogger, { ttlMs: 60_000, pollIntervalMs: 20 }, () => now);
    const old = await tasks.start(run({ content: [] }));
    await new Promise((r) => setTimeout(r, 100));
    now += 11 * 60_000;
    const fresh = await tasks.start(run({ content: [] }));
    await new Promise((r) => setTimeout(r, 100));
    const left = fs.readdirSync(path.join(dir, 'protocol', 'tasks')).filter((f) => f.endsWith('.json'));
    expect(left).toEqual([`${fresh.taskId}.json`]);
    expect(left).not.toContain(`${old.taskId}.json`);
  });

  it('a working task whose instance stopped its heartbeat is answered failed, not working forever', async () => {
    let now = Date.now();
    const store = new FileExtensionTaskStore(dir);
    // The instance that created the task (and then died: its run never ends, its heartbeat stops with the clock).
    const dead = new ExtensionTasks(() => store, silentLogger, { staleMs: 30_000, pollIntervalMs: 10_000 }, () => now);
    const created = await dead.start(run({ content: [] }, 60_000));
    const other = new ExtensionTasks(() => store, silentLogger, { staleMs: 30_000 }, () => now);
    expect((await other.get(created.taskId, 'alice')).status).toBe('working');
    now += 30_001;
    const failed = await other.get(created.taskId, 'alice');
    expect(failed).toMatchObject({ status: 'failed', error: { code: -32603, message: expect.stringContaining('stopped before it finished') } });
    // Terminal now: the dead instance's late writes cannot bring it back.
    await dead.cancel(created.taskId, 'alice');
    expect((await other.get(created.taskId, 'alice')).status).toBe('failed');
  });

  describe('requestState', () => {
    const store = () => new FileExtensionTaskStore(dir);
    const ctx = (requestState?: string, inputResponses?: Record<string, unknown>): ServerContext =>
      ({
        mcpReq: {
          envelope: { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
          requestState: () => requestState,
          inputResponses,
        },
      }) as unknown as ServerContext;
    const call = { tool: 'delete_nodes', caller: 'alice', args: { nodeIds: ['a'] } };
    const yes = { confirm_it: { action: 'accept', content: { confirm: true } } };

    it('signed, bound to its call and subject; the key is made once, 0600', async () => {
      const codec = requestStateCodec(() => store().signingKey());
      const first = await inputSeam(ctx(), call, codec);
      expect(first.input?.kinds).toEqual(['confirm']);
      expect(first.input?.answer('confirm_it', 'subject-1')).toBeUndefined();
      const asked = await first.ask(InputRequest.confirm('confirm_it', 'Delete a?', 'subject-1'));
      expect(asked).toMatchObject({ resultType: 'input_required', inputRequests: { confirm_it: { method: 'elicitation/create' } } });
      const retry = await inputSeam(ctx(asked.requestState as string, yes), call, codec);
      expect(retry.input?.answer('confirm_it', 'subject-1')).toEqual({ accepted: true });
      // The same answer for another subject (the dependents changed meanwhile) counts for nothing: ask again.
      expect(retry.input?.answer('confirm_it', 'subject-2')).toBeUndefined();
      await expect(inputSeam(ctx(asked.requestState as string, yes), { ...call, caller: 'mallory' }, codec)).rejects.toMatchObject({ message: expect.stringContaining('made for another call') });
      const keyFile = path.join(dir, 'protocol', 'request-state.key');
      expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(keyFile)).toHaveLength(32);
    });

    it('an expired state, and one signed with another key, are refused naming why', async () => {
      const key = await store().signingKey();
      const expired = await createRequestStateCodec({ key: new Uint8Array(key), ttlSeconds: -1 }).mint({ ...call, args: 'x', key: 'k', kind: 'confirm', subject: 's' });
      const codec = requestStateCodec(() => store().signingKey());
      await expect(inputSeam(ctx(expired, yes), call, codec)).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('expired') });
      const foreign = await createRequestStateCodec({ key: new Uint8Array(32).fill(7) }).mint({ ...call, args: 'x', key: 'k', kind: 'confirm', subject: 's' });
      await expect(inputSeam(ctx(foreign, yes), call, codec)).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('signature does not match') });
    });
  });
});
