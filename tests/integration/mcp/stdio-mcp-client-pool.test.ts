import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { McpServerRef } from '../../../src/modules/graph/application/ports/mcp-client-pool';
import { CancelledError, ExternalToolError } from '../../../src/kernel/errors';
import { SdkMcpClientPool } from '../../../src/modules/graph/infrastructure/mcp';
import { isAlive } from '../../helpers/processes';

const FIXTURE = path.resolve(__dirname, '../../fixtures/mcp-servers/test-server.js');

function fixtureServer(name = 'fixture', extra: { env?: Record<string, string>; cwd?: string } = {}): McpServerRef {
  return { name, config: { command: process.execPath, args: [FIXTURE], ...extra } };
}


async function waitUntilDead(pid: number, timeoutMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return !isAlive(pid);
}

async function echoPid(pool: SdkMcpClientPool, server: McpServerRef, message = 'hi'): Promise<number> {
  const result = await pool.callTool(server, 'echo', { message });
  return (result.structuredContent as { pid: number }).pid;
}

describe('SdkMcpClientPool over stdio', () => {
  let pool: SdkMcpClientPool;
  const pids: number[] = [];

  beforeEach(() => {
    pool = new SdkMcpClientPool({ requestTimeoutMs: 15_000 });
  });

  afterEach(async () => {
    await pool.closeAll();
    for (const pid of pids.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  });

  it('calls a tool and returns its structuredContent and text content', async () => {
    const result = await pool.callTool(fixtureServer(), 'echo', { message: 'hello' });
    const structured = result.structuredContent as { message: string; pid: number };
    pids.push(structured.pid);
    expect(structured.message).toBe('hello');
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(result.content?.[0]?.text ?? 'null')).toEqual(structured);

    const textOnly = await pool.callTool(fixtureServer(), 'text_only', { message: 'x' });
    expect(textOnly.structuredContent).toBeUndefined();
    expect(textOnly.content).toEqual([{ type: 'text', text: 'said: x' }]);
  });

  it('passes cwd and env (merged over the default environment) to the server', async () => {
    const dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wg-mcp-cwd-')));
    try {
      const server = fixtureServer('with-env', { cwd: dir, env: { FIXTURE_TAG: 'tagged' } });
      const result = await pool.callTool(server, 'echo', { message: 'x' });
      const structured = result.structuredContent as { cwd: string; tag: string; pid: number };
      pids.push(structured.pid);
      expect(structured.cwd).toBe(dir);
      expect(structured.tag).toBe('tagged');
    } finally {
      await pool.closeAll();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it('reuses one server process across calls, and concurrent first calls share one start', async () => {
    const server = fixtureServer();
    const first = await Promise.all([echoPid(pool, server, 'a'), echoPid(pool, server, 'b'), echoPid(pool, server, 'c')]);
    pids.push(...first);
    expect(new Set(first).size).toBe(1);
    expect(await echoPid(pool, server)).toBe(first[0]);
  });

  it('starts one process per distinct server config, even under the same name', async () => {
    const a = await echoPid(pool, fixtureServer('same', { env: { FIXTURE_TAG: 'a' } }));
    const b = await echoPid(pool, fixtureServer('same', { env: { FIXTURE_TAG: 'b' } }));
    pids.push(a, b);
    expect(a).not.toBe(b);
  });

  it('returns an isError result as it is (the engine turns it into an error)', async () => {
    const result = await pool.callTool(fixtureServer(), 'fail', {});
    expect(result.isError).toBe(true);
    expect(result.content?.[0]?.text).toMatch(/failed on purpose/);
    // The server is still the same, healthy process afterwards.
    const pid = Number(/pid (\d+)/.exec(result.content?.[0]?.text ?? '')?.[1]);
    pids.push(pid);
    expect(await echoPid(pool, fixtureServer())).toBe(pid);
  });

  it('fails a call in flight when the server crashes, with the stderr tail, and restarts it on the next call', async () => {
    const server = fixtureServer('crashy');
    const before = await echoPid(pool, server);
    pids.push(before);
    await pool.callTool(server, 'stderr', { text: 'earlier noise\n' });

    const error = await pool.callTool(server, 'crash', { message: 'disk on fire' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExternalToolError);
    const failure = error as ExternalToolError;
    expect(failure.message).toMatch(/MCP server 'crashy' tool 'crash'/);
    expect(failure.message).toMatch(/disk on fire/);
    expect(failure.message).not.toMatch(/\n/);
    expect(failure.details).toMatchObject({ server: 'crashy', tool: 'crash' });
    expect(failure.details.stderrTail).toMatch(/earlier noise\n.*disk on fire$/s);
    expect(await waitUntilDead(before)).toBe(true);

    const after = await echoPid(pool, server);
    pids.push(after);
    expect(after).not.toBe(before);
  });

  it('starts a new process when the server died between calls', async () => {
    const server = fixtureServer('killed');
    const before = await echoPid(pool, server);
    pids.push(before);
    process.kill(before, 'SIGKILL');
    expect(await waitUntilDead(before)).toBe(true);
    // The pool may see the exit only now; either way the call must reach a fresh, working process.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = await echoPid(pool, server);
    pids.push(after);
    expect(after).not.toBe(before);
  });

  it('reports a server that cannot start, with its stderr, and tries again on the next call', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-mcp-bad-'));
    try {
      // Fails on its first start (like a missing setting), works from the second on: a failed start is not cached.
      const script = path.join(dir, 'flaky.js');
      const marker = path.join(dir, 'started-once');
      await fs.writeFile(
        script,
        `const fs = require('fs');
         if (!fs.existsSync(${JSON.stringify(marker)})) {
           fs.writeFileSync(${JSON.stringify(marker)}, '');
           process.stderr.write('missing API key FOO_KEY\\n');
           process.exit(2);
         }
         require(${JSON.stringify(FIXTURE)});\n`,
      );
      const server: McpServerRef = { name: 'flaky', config: { command: process.execPath, args: [script] } };
      const first = (await pool.callTool(server, 'echo', { message: 'x' }).catch((e: unknown) => e)) as ExternalToolError;
      expect(first).toBeInstanceOf(ExternalToolError);
      expect(first.message).toMatch(/MCP server 'flaky' tool 'echo' could not be started: .*; stderr: missing API key/);
      expect(first.details).toMatchObject({ server: 'flaky', tool: 'echo', stderrTail: 'missing API key FOO_KEY' });

      pids.push(await echoPid(pool, server));
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps the line that explains a failed start (Node's 'Cannot find module'), not only the end of the stack", async () => {
    const missing = path.join(os.tmpdir(), 'wg-no-such-dir', 'missing-server.js');
    const server: McpServerRef = { name: 'nomodule', config: { command: process.execPath, args: [missing] } };
    const error = (await pool.callTool(server, 'echo', {}).catch((e: unknown) => e)) as ExternalToolError;
    expect(error).toBeInstanceOf(ExternalToolError);
    expect(error.message).toContain(`Cannot find module '${missing}'`);
    expect(error.message).toMatch(/Node\.js v\d+/);
    expect(error.message).not.toMatch(/\n/);
  });

  it('names a command that does not exist', async () => {
    const server: McpServerRef = { name: 'ghost', config: { command: 'workgraph-no-such-command-xyz' } };
    const error = (await pool.callTool(server, 'echo', {}).catch((e: unknown) => e)) as ExternalToolError;
    expect(error).toBeInstanceOf(ExternalToolError);
    expect(error.message).toMatch(/MCP server 'ghost' tool 'echo' could not be started: .*ENOENT/);
  });

  it('cancels a slow call when the signal aborts, and the server stays usable', async () => {
    const server = fixtureServer();
    const pid = await echoPid(pool, server);
    pids.push(pid);
    const controller = new AbortController();
    const call = pool.callTool(server, 'slow', { ms: 20_000 }, controller.signal);
    setTimeout(() => controller.abort(), 200);
    await expect(call).rejects.toBeInstanceOf(CancelledError);
    await expect(call).rejects.toThrow(/server 'fixture' tool 'slow' was cancelled/);
    // The server got notifications/cancelled and stopped waiting (it says so on stderr, which a later error shows).
    expect(await echoPid(pool, server)).toBe(pid);
    const error = (await pool.callTool(server, 'crash', {}).catch((e: unknown) => e)) as ExternalToolError;
    expect(error.details.stderrTail).toMatch(/slow cancelled/);
  });

  it('refuses at once when the signal is already aborted, without starting a server', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(pool.callTool(fixtureServer(), 'echo', { message: 'x' }, controller.signal)).rejects.toBeInstanceOf(
      CancelledError,
    );
  });

  it('does not pile up abort listeners on a signal shared by many calls', async () => {
    const server = fixtureServer();
    const controller = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 30; i++) await pool.callTool(server, 'echo', { message: `${i}` }, controller.signal);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => /listener/i.test(w.message))).toEqual([]);
  });

  it('fails a call that gets no answer within the request timeout, naming the limit', async () => {
    // Long enough for the server to start on a loaded 2-core machine (the handshake has the same limit).
    const quick = new SdkMcpClientPool({ requestTimeoutMs: 4_000 });
    try {
      const server = fixtureServer();
      pids.push(await echoPid(quick, server));
      const error = (await quick.callTool(server, 'slow', { ms: 30_000 }).catch((e: unknown) => e)) as ExternalToolError;
      expect(error).toBeInstanceOf(ExternalToolError);
      expect(error.message).toMatch(/tool 'slow' failed: no answer within 4000 ms/);
    } finally {
      await quick.closeAll();
    }
  });

  it('closeAll ends every server process, and a later call starts a fresh one', async () => {
    const a = await echoPid(pool, fixtureServer('a'));
    const b = await echoPid(pool, fixtureServer('b'));
    pids.push(a, b);
    expect(isAlive(a) && isAlive(b)).toBe(true);
    await pool.closeAll();
    expect(isAlive(a)).toBe(false);
    expect(isAlive(b)).toBe(false);

    const c = await echoPid(pool, fixtureServer('a'));
    pids.push(c);
    expect(c).not.toBe(a);
  });

  it('killAll ends every server process synchronously (for process exit)', async () => {
    const a = await echoPid(pool, fixtureServer('a'));
    const b = await echoPid(pool, fixtureServer('b'));
    pids.push(a, b);
    pool.killAll();
    expect(await waitUntilDead(a)).toBe(true);
    expect(await waitUntilDead(b)).toBe(true);
  });

  it('retainOnly closes servers no longer served, after their calls in flight; the served one stays', async () => {
    const kept = fixtureServer('kept', { env: { FIXTURE_LINGER: '1' } });
    const old = fixtureServer('old', { env: { FIXTURE_LINGER: '1', FIXTURE_TAG: 'v1' } });
    const keptPid = await echoPid(pool, kept);
    const oldPid = await echoPid(pool, old);
    pids.push(keptPid, oldPid);
    // A call in flight on the retired server finishes before the server is closed.
    const slow = pool.callTool(old, 'slow', { ms: 1_500 });
    await new Promise((r) => setTimeout(r, 300));
    await pool.retainOnly([kept, fixtureServer('old', { env: { FIXTURE_LINGER: '1', FIXTURE_TAG: 'v2' } })]);
    expect(isAlive(oldPid)).toBe(true);
    const answer = await slow;
    expect(answer.isError).toBeFalsy();
    expect(await waitUntilDead(oldPid)).toBe(true);
    expect(isAlive(keptPid)).toBe(true);
    expect(await echoPid(pool, kept)).toBe(keptPid);
    // A run started before the edit may call the old configuration again: it gets a server, closed after the call.
    const again = await echoPid(pool, old);
    pids.push(again);
    expect(again).not.toBe(oldPid);
    expect(await waitUntilDead(again)).toBe(true);
  }, 60_000);
});

describe('SdkMcpClientPool.describeServer (the authoring tools\' server listing)', () => {
  it('answers serverInfo and every tool with its input schema, over the connection tool calls use', async () => {
    const pool = new SdkMcpClientPool({ requestTimeoutMs: 15_000 });
    try {
      const server = fixtureServer();
      const d = await pool.describeServer(server);
      expect(d.serverInfo).toEqual({ name: 'pool-test-server', version: '1.0.0' });
      expect(d.tools.map((t) => t.name)).toEqual(['echo', 'text_only', 'fail', 'crash', 'slow', 'stderr']);
      expect(d.tools[0].inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
      const pid = (await pool.callTool(server, 'echo', { message: 'x' })).structuredContent as { pid: number };
      // The listing started the server; the call reused it (one process).
      expect((await pool.callTool(server, 'echo', { message: 'y' })).structuredContent).toMatchObject({ pid: pid.pid });
    } finally {
      await pool.closeAll();
    }
  });

  it('a server that never answers the handshake fails within the request timeout, naming the server', async () => {
    const quick = new SdkMcpClientPool({ requestTimeoutMs: 1_500 });
    try {
      const silent: McpServerRef = { name: 'silent', config: { command: process.execPath, args: ['-e', "process.stdin.on('data', () => {}).on('end', () => process.exit(0))"] } };
      const error = (await quick.describeServer(silent).catch((e: unknown) => e)) as ExternalToolError;
      expect(error).toBeInstanceOf(ExternalToolError);
      expect(error.message).toMatch(/^MCP server 'silent' could not be started: no answer within 1500 ms/);
    } finally {
      await quick.closeAll();
    }
  });

  it('an aborted signal cancels the listing, naming the server', async () => {
    const pool = new SdkMcpClientPool();
    const controller = new AbortController();
    controller.abort();
    await expect(pool.describeServer(fixtureServer(), controller.signal)).rejects.toThrow(new CancelledError("listing the tools of MCP server 'fixture' was cancelled"));
  });
});
