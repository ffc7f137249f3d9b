import * as fs from 'node:fs';
import * as path from 'node:path';
import { RawServer, tempDir } from './helpers/server-process';
import { isAlive } from '../helpers/processes';

/**
 * Issue 6 / DESIGN.md §2: a client that leaves (closes the server's stdin) ends the server with exit 0, and no child
 * survives it — here the stdio MCP server a graph's `mcp` node started (tests/fixtures/mcp-servers/test-server.js,
 * whose tools answer with their own pid).
 */

const FIXTURE = path.resolve(__dirname, '../fixtures/mcp-servers/test-server.js');
/** Generous liveness bounds on a loaded machine, not speed figures. */
const EXIT_BOUND_MS = 15_000;


async function gone(pid: number, timeoutMs = EXIT_BOUND_MS): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(what)), ms))),
  ]);
}

describe('graph mcp children end with the server (built server, --graphs)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let graphFile: string;
  const started: RawServer[] = [];
  const childPids: number[] = [];

  beforeAll(() => {
    tmp = tempDir('wg-e2e-graph-children-');
    graphFile = path.join(tmp.dir, 'kid.json');
    const tool = (name: string, toolName: string, args: Record<string, unknown>) => ({
      name,
      description: `${toolName} through the fixture MCP server`,
      inputSchema: { type: 'object', properties: { message: { type: 'string' }, ms: { type: 'number' } } },
      outputSchema: { type: 'object' },
      nodes: [
        { id: 'entry', type: 'entry', next: 'call' },
        { id: 'call', type: 'mcp', server: 'kid', tool: toolName, args, next: 'exit' },
        { id: 'exit', type: 'exit' },
      ],
    });
    fs.writeFileSync(
      graphFile,
      JSON.stringify({
        server: { name: 'children', version: '1.0.0' },
        // FIXTURE_LINGER: the child does not exit when its stdin ends (many real servers don't), so it is gone
        // only if the workgraph server ends it.
        mcpServers: { kid: { command: process.execPath, args: [FIXTURE], env: { FIXTURE_LINGER: '1' } } },
        tools: [tool('kid_echo', 'echo', { message: { expr: '$.entry.message' } }), tool('kid_slow', 'slow', { ms: { expr: '$.entry.ms' } })],
      }),
    );
  });
  afterAll(() => {
    for (const s of started) s.kill();
    for (const pid of childPids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    tmp.cleanup();
  });

  async function serverWithChild(): Promise<{ server: RawServer; pid: number }> {
    // A short grace period: closing stdin lets a call in flight go on for that long, then cancels it.
    const server = new RawServer({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', graphFile, '--shutdown-grace', '2'] });
    started.push(server);
    await server.initialize();
    server.send({ jsonrpc: '2.0', id: 'echo', method: 'tools/call', params: { name: 'kid_echo', arguments: { message: 'hi' } } });
    const answer = (await server.response('echo')).result as { isError?: boolean; structuredContent: { message: string; pid: number } };
    expect(answer.isError).toBeFalsy();
    expect(answer.structuredContent.message).toBe('hi');
    const pid = answer.structuredContent.pid;
    childPids.push(pid);
    expect(pid).not.toBe(server.child.pid);
    expect(isAlive(pid)).toBe(true); // the MCP server child is kept for reuse between calls
    return { server, pid };
  }

  it('after a tools/call that started the MCP server child, closing stdin: exit 0 and the child is gone', async () => {
    const { server, pid } = await serverWithChild();
    server.child.stdin.end();
    const exit = await within(server.exited, EXIT_BOUND_MS, 'server did not exit after stdin closed');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(await gone(pid)).toBe(true);
    expect(server.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }, 30_000);

  it('closing stdin while a graph call waits on the child: exit 0 and the child is gone', async () => {
    const { server, pid } = await serverWithChild();
    server.send({ jsonrpc: '2.0', id: 'slow', method: 'tools/call', params: { name: 'kid_slow', arguments: { ms: 60_000 } } });
    await new Promise((r) => setTimeout(r, 300)); // the call reaches the child
    expect(isAlive(pid)).toBe(true);
    server.child.stdin.end();
    const exit = await within(server.exited, EXIT_BOUND_MS, 'server did not exit after stdin closed mid-call');
    expect(exit).toEqual({ code: 0, signal: null });
    expect(await gone(pid)).toBe(true);
    // Every line the server wrote is JSON-RPC (the abandoned call may or may not have been answered).
    for (const line of server.lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
  }, 30_000);
});

describe('editing a graph file\'s mcpServers closes the servers no longer served (built server, --graphs)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: RawServer | undefined;
  const childPids: number[] = [];
  beforeAll(() => {
    tmp = tempDir('wg-e2e-graph-edit-');
  });
  afterAll(() => {
    server?.kill();
    for (const pid of childPids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    tmp.cleanup();
  });

  /** The graph with its `kid` server tagged `tag` (FIXTURE_TAG: a changed env is a changed configuration). */
  function writeGraph(file: string, tag: string, serverName = 'kid'): void {
    const graph = {
      server: { name: 'edited', version: '1.0.0' },
      mcpServers: { [serverName]: { command: process.execPath, args: [FIXTURE], env: { FIXTURE_LINGER: '1', FIXTURE_TAG: tag } } },
      tools: [
        {
          name: 'kid_tag',
          description: 'echo through the fixture, answering with its tag and pid',
          inputSchema: { type: 'object', properties: {} },
          outputSchema: { type: 'object' },
          nodes: [
            { id: 'entry', type: 'entry', next: 'call' },
            { id: 'call', type: 'mcp', server: serverName, tool: 'echo', args: { message: 'tag?' }, next: 'exit' },
            { id: 'exit', type: 'exit' },
          ],
        },
      ],
    };
    // Written to a temp file and renamed, so the watcher never reads half a file.
    fs.writeFileSync(file + '.tmp', JSON.stringify(graph));
    fs.renameSync(file + '.tmp', file);
  }

  let seq = 0;
  /** Calls kid_tag until the child answering carries `tag` (the reload is picked up by a file watcher). */
  async function childWithTag(s: RawServer, tag: string): Promise<number> {
    const deadline = Date.now() + EXIT_BOUND_MS;
    for (;;) {
      const id = `tag-${seq++}`;
      s.send({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'kid_tag', arguments: {} } });
      const answer = (await s.response(id)).result as { isError?: boolean; structuredContent?: { tag: string; pid: number } };
      if (!answer.isError && answer.structuredContent!.tag === tag) {
        childPids.push(answer.structuredContent!.pid);
        return answer.structuredContent!.pid;
      }
      if (Date.now() > deadline) throw new Error(`no child with tag ${tag}: ${JSON.stringify(answer)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('six edits leave one child, the one the current file declares; renaming the server closes the old one too', async () => {
    const file = path.join(tmp.dir, 'edited.json');
    writeGraph(file, 'v0');
    const s = (server = new RawServer({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', file] }));
    await s.initialize();
    const pids = [await childWithTag(s, 'v0')];
    for (let v = 1; v <= 6; v++) {
      writeGraph(file, `v${v}`);
      pids.push(await childWithTag(s, `v${v}`));
      // The previous configuration is no longer served: its process is ended.
      expect(await gone(pids[v - 1]!)).toBe(true);
    }
    expect(new Set(pids).size).toBe(7);
    expect(pids.filter((pid) => isAlive(pid))).toEqual([pids[6]]);

    writeGraph(file, 'renamed', 'kid2');
    const renamed = await childWithTag(s, 'renamed');
    expect(await gone(pids[6]!)).toBe(true);
    expect(isAlive(renamed)).toBe(true);

    s.child.stdin.end();
    expect(await within(s.exited, EXIT_BOUND_MS, 'server did not exit')).toEqual({ code: 0, signal: null });
    expect(await gone(renamed)).toBe(true);
  }, 120_000);
});
