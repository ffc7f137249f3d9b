import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { McpServerRef } from '../../../src/modules/graph/application/ports/mcp-client-pool';
import { CancelledError, ExternalToolError } from '../../../src/kernel/errors';
import { SdkMcpClientPool } from '../../../src/modules/graph/infrastructure/mcp';
import { isAlive, waitUntilGone } from '../../helpers/processes';
import { echoPid, fixtureServer, useStdioPool } from './stdio-pool-fixture';

/**
 * SdkMcpClientPool over stdio with the fixture MCP server as a real child process: calls, cwd and env, one process per
 * config shared by concurrent first calls, isError results, closing and retaining servers, and describeServer. (Crashes,
 * failed starts, cancelling and timeouts: stdio-mcp-client-pool-failures.test.ts.)
 */

describe('SdkMcpClientPool over stdio', () => {
  const t = useStdioPool();
  const { pids } = t;
  let pool: SdkMcpClientPool;
  beforeEach(() => ({ pool } = t));

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
    expect(await waitUntilGone(a)).toBe(true);
    expect(await waitUntilGone(b)).toBe(true);
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
    expect(await waitUntilGone(oldPid)).toBe(true);
    expect(isAlive(keptPid)).toBe(true);
    expect(await echoPid(pool, kept)).toBe(keptPid);
    // A run started before the edit may call the old configuration again: it gets a server, closed after the call.
    const again = await echoPid(pool, old);
    pids.push(again);
    expect(again).not.toBe(oldPid);
    expect(await waitUntilGone(again)).toBe(true);
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
