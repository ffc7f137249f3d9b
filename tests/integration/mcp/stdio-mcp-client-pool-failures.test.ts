import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { McpServerRef } from '../../../src/modules/graph/application/ports/mcp-client-pool';
import { CancelledError, ExternalToolError } from '../../../src/kernel/errors';
import { SdkMcpClientPool } from '../../../src/modules/graph/infrastructure/mcp';
import { waitUntilGone } from '../../helpers/processes';
import { echoPid, FIXTURE, fixtureServer, useStdioPool } from './stdio-pool-fixture';

/**
 * SdkMcpClientPool over stdio when things go wrong, with the fixture MCP server as a real child process: a server that
 * crashes mid-call or died between calls (restarted, with its stderr tail), one that cannot start (its explaining
 * line kept) or does not exist, a cancelled or already-aborted call, a shared signal, a request timeout. (Calls and
 * the pool's lifecycle: stdio-mcp-client-pool.test.ts.)
 */

describe('SdkMcpClientPool over stdio: failures', () => {
  const t = useStdioPool();
  const { pids } = t;
  let pool: SdkMcpClientPool;
  beforeEach(() => ({ pool } = t));

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
    expect(await waitUntilGone(before)).toBe(true);

    const after = await echoPid(pool, server);
    pids.push(after);
    expect(after).not.toBe(before);
  });

  it('starts a new process when the server died between calls', async () => {
    const server = fixtureServer('killed');
    const before = await echoPid(pool, server);
    pids.push(before);
    process.kill(before, 'SIGKILL');
    expect(await waitUntilGone(before)).toBe(true);
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
});
