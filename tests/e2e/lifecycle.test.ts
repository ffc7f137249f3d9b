import * as fs from 'node:fs';
import * as path from 'node:path';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { RawServer, tempDir } from './helpers/server-process';

/**
 * The MCP lifecycle as the SDK and the spec define it (documented in spec/mcp-api.md, Protocol), and the end of a
 * session while a request is in flight: the server exits 0 promptly, without a stack trace, and leaves no child
 * process behind.
 */

type Msg = Record<string, unknown>;

const initialize = (id: string, protocolVersion: string): Msg => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'lifecycle', version: '1' } },
});

/** A generous liveness bound for "exits promptly" (not a speed figure). */
const EXIT_BOUND_MS = 15_000;

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** `promise`, or a rejection naming `what` after `ms` (the timer is cleared either way, so jest can exit). */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitFor(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('MCP lifecycle (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let raw: RawServer | undefined;
  beforeEach(() => {
    tmp = tempDir('wg-life-');
  });
  afterEach(() => {
    raw?.kill();
    raw = undefined;
    tmp.cleanup();
  });

  it('answers an initialize with an unknown protocol version with the latest supported one', async () => {
    raw = new RawServer({ dataDir: tmp.dir });
    raw.send(initialize('i1', '1999-01-01'));
    const result = (await raw.response('i1')).result as Msg;
    expect(result.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    expect((result.serverInfo as Msg).name).toBe('workgraph');
    expect(result.capabilities).toMatchObject({ tools: { listChanged: true }, logging: {} });
  });

  it('keeps a supported older protocol version the client asks for', async () => {
    raw = new RawServer({ dataDir: tmp.dir });
    const older = SUPPORTED_PROTOCOL_VERSIONS.find((v) => v !== LATEST_PROTOCOL_VERSION)!;
    raw.send(initialize('i1', older));
    expect(((await raw.response('i1')).result as Msg).protocolVersion).toBe(older);
  });

  it('serves requests sent before initialize (the SDK does not gate them)', async () => {
    raw = new RawServer({ dataDir: tmp.dir });
    raw.send({ jsonrpc: '2.0', id: 'ping', method: 'ping' });
    raw.send({ jsonrpc: '2.0', id: 'list', method: 'tools/list', params: {} });
    raw.send({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'workflow_list', arguments: {} } });
    expect((await raw.response('ping')).result).toEqual({});
    expect(((await raw.response('list')).result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
    const call = (await raw.response('call')).result as Msg;
    expect(call.isError).toBeFalsy();
    expect((call.structuredContent as { workflows: unknown[] }).workflows.length).toBeGreaterThan(0);
  });

  it('answers a second initialize again, negotiating the version anew', async () => {
    raw = new RawServer({ dataDir: tmp.dir });
    raw.send(initialize('i1', LATEST_PROTOCOL_VERSION));
    expect(((await raw.response('i1')).result as Msg).protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
    raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    raw.send(initialize('i2', '2024-11-05'));
    const second = await raw.response('i2');
    expect(second.error).toBeUndefined();
    expect((second.result as Msg).protocolVersion).toBe('2024-11-05');
    raw.send({ jsonrpc: '2.0', id: 'after', method: 'tools/list', params: {} });
    expect(((await raw.response('after')).result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
  });

  it('refuses an initialize without clientInfo/capabilities with -32602 naming the fields', async () => {
    raw = new RawServer({ dataDir: tmp.dir });
    raw.send({ jsonrpc: '2.0', id: 'bad', method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION } });
    const error = (await raw.response('bad')).error as { code: number; message: string };
    expect(error.code).toBe(-32602);
    expect(error.message).toContain('clientInfo');
    expect(error.message).not.toContain('\n');
  });

  describe('a client that goes away while validate_task_loop runs a slow command', () => {
    /** Starts a server, a project whose only task runs `sleep 30` (writing its pid first), and that validation. */
    async function startSlowValidation(progressToken?: string): Promise<{ server: RawServer; pid: number; root: string }> {
      const root = path.join(tmp.dir, 'project');
      fs.mkdirSync(root);
      // A short grace period: the end of stdin lets in-flight calls finish for that long, then cancels them.
      const server = (raw = new RawServer({ dataDir: path.join(tmp.dir, 'data'), args: ['--allow-root', root, '--shutdown-grace', '1'] }));
      await server.initialize();
      const call = async (id: string, name: string, args: Msg, meta?: Msg): Promise<Msg> => {
        server.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) } });
        const r = (await server.response(id)).result as Msg;
        if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
        return r;
      };
      await call('create', 'init_project_graph', {
        projectName: 'slow',
        projectRoot: root,
        nodes: [{ id: 'slow', title: 'Slow check', validation_command: 'echo $$ > sleep.pid; exec sleep 30' }],
      });
      await call('start', 'start_task', { project: 'slow', nodeId: 'slow' });
      server.send({
        jsonrpc: '2.0',
        id: 'validate',
        method: 'tools/call',
        params: { name: 'validate_task_loop', arguments: { project: 'slow', nodeId: 'slow' }, ...(progressToken ? { _meta: { progressToken } } : {}) },
      });
      const pidFile = path.join(root, 'sleep.pid');
      await waitFor(() => fs.existsSync(pidFile) && /^\d+\s*$/.test(fs.readFileSync(pidFile, 'utf8')), 20_000, 'the validation command to start');
      const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
      expect(processAlive(pid)).toBe(true);
      return { server, pid, root };
    }

    it('closing stdin mid-request: the call is cancelled after the grace period and answered, exit 0, the command is killed', async () => {
      const { server, pid } = await startSlowValidation();
      const closedAt = Date.now();
      server.child.stdin.end();
      const exit = await within(server.exited, EXIT_BOUND_MS, 'server did not exit after stdin closed');
      expect(exit).toEqual({ code: 0, signal: null });
      expect(Date.now() - closedAt).toBeLessThan(EXIT_BOUND_MS);
      expect(server.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
      await waitFor(() => !processAlive(pid), 5_000, `validation command (pid ${pid}) to be gone`);
      // stdout still works, so the request already received is answered: cancelled once the grace period ran out.
      const answer = (await server.response('validate', 1_000)).result as Msg;
      expect((answer._meta as Msg)['workgraph/errorCode']).toBe('cancelled');
    }, 60_000);

    it('closing stdout mid-request (EPIPE on the next progress notification): exit 0, the command is killed', async () => {
      const { server, pid } = await startSlowValidation('progress-1');
      server.child.stdout.destroy();
      const exit = await within(server.exited, EXIT_BOUND_MS, 'server did not exit after its stdout broke');
      expect(exit).toEqual({ code: 0, signal: null });
      expect(server.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
      await waitFor(() => !processAlive(pid), 5_000, `validation command (pid ${pid}) to be gone`);
    }, 60_000);
  });
});
