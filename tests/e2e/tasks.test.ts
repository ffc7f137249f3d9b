import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, RawServer, tempDir } from './helpers/server-process';
import { OutputSchemaChecker } from './helpers/output-schemas';
import { isAlive } from '../helpers/processes';
import { SchemaRegistry } from '../../src/kernel/schema-registry';

/** The tasks module through the built server and the SDK's real client: the DAG, real commands, progress, cancel. */

type Conn = Awaited<ReturnType<typeof connectClient>>;
type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const LIVENESS_MS = 20_000;


async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = LIVENESS_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function readPid(file: string): Promise<number> {
  return waitFor(`pid file ${file}`, () => {
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : '';
    return /^\d+$/.test(text) ? Number(text) : undefined;
  });
}

function text(result: CallToolResult): string {
  return (result.content as Array<{ type: string; text: string }>)[0].text;
}

describe('tasks module e2e (built server, SDK client)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let outside: ReturnType<typeof tempDir>;
  let projectRoot: string;
  let conn: Conn;
  let schemas: OutputSchemaChecker;

  /** Calls a tool, checks its structuredContent against the tool's outputSchema, and returns the result. */
  async function call(name: string, args: Record<string, unknown>, options?: Parameters<Conn['client']['callTool']>[2]): Promise<CallToolResult> {
    const result = (await conn.client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
    schemas.check(name, result);
    return result;
  }
  async function ok(name: string, args: Record<string, unknown>): Promise<Structured> {
    const result = await call(name, args);
    if (result.isError) throw new Error(`${name} failed: ${text(result)}`);
    return result.structuredContent as Structured;
  }
  async function node(project: string, id: string): Promise<Structured> {
    const graph = await ok('get_project_graph', { project });
    return (graph.nodes as Structured[]).find((n) => n.id === id)!;
  }

  beforeAll(async () => {
    tmp = tempDir('wg-e2e-tasks-');
    outside = tempDir('wg-e2e-outside-');
    projectRoot = path.join(tmp.dir, 'project');
    fs.mkdirSync(projectRoot);
    conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--allow-root', tmp.dir] });
    schemas = await OutputSchemaChecker.fromClient(conn.client);
  });
  afterAll(async () => {
    await conn?.close();
    tmp.cleanup();
    outside.cleanup();
  });

  it('lists the seven task tools', async () => {
    const { tools } = await conn.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['init_project_graph', 'get_ready_tasks', 'get_project_graph', 'start_task', 'validate_task_loop', 'reset_task_node', 'scaffold_project_docs']),
    );
  });

  it('runs a DAG: ready set, start, a passing command unlocks dependents, a failing one retries then fails, reset', async () => {
    const graph = await ok('init_project_graph', {
      projectName: 'Demo App',
      projectRoot,
      nodes: [
        { id: 'setup', title: 'Set up', depends_on: [], validation_command: 'true' },
        { id: 'api', title: 'API', depends_on: ['setup'], validation_command: 'test -f api.done', max_attempts: 2 },
        { id: 'ui', title: 'UI', depends_on: ['setup'], validation_command: 'echo ui ok' },
        { id: 'release', title: 'Release', depends_on: ['api', 'ui'] },
      ],
    });
    expect(graph.project_id).toBe('demo-app');
    expect(Object.fromEntries((graph.nodes as Structured[]).map((n) => [n.id, n.status]))).toEqual({
      setup: 'READY',
      api: 'PENDING',
      ui: 'PENDING',
      release: 'PENDING',
    });

    let ready = await ok('get_ready_tasks', { project: 'Demo App' });
    expect(ready).toEqual({ ready_count: 1, ready_tasks: [{ id: 'setup', title: 'Set up', status: 'READY', priority: 'medium', unblocks: 3 }], revision: 0 });

    // A call the state machine refuses: the error says the current status.
    const early = await call('validate_task_loop', { project: 'demo-app', nodeId: 'setup' });
    expect(early.isError).toBe(true);
    expect(text(early)).toMatch(/READY/);

    expect((await ok('start_task', { project: 'demo-app', nodeId: 'setup' })).node.status).toBe('IN_PROGRESS');
    const passed = await ok('validate_task_loop', { project: 'demo-app', nodeId: 'setup' });
    expect(passed.validation_passed).toBe(true);
    expect(passed.result).toMatchObject({ exitCode: 0, signal: null, truncated: false });
    expect(passed.node.status).toBe('COMPLETED');
    expect([...passed.unlocked].sort()).toEqual(['api', 'ui']);
    expect(passed.message).toContain('attempt 1/3');

    ready = await ok('get_ready_tasks', { project: 'demo-app' });
    expect(ready.ready_tasks.map((t: Structured) => t.id).sort()).toEqual(['api', 'ui']);

    // The output of the command comes back.
    await ok('start_task', { project: 'demo-app', nodeId: 'ui' });
    const ui = await ok('validate_task_loop', { project: 'demo-app', nodeId: 'ui' });
    expect(ui.result.stdout).toBe('ui ok\n');
    expect(ui.unlocked).toEqual([]); // release still waits for api

    // api fails: RETRYING at attempt 1/2, then FAILED at 2/2.
    await ok('start_task', { project: 'demo-app', nodeId: 'api' });
    const fail1 = await ok('validate_task_loop', { project: 'demo-app', nodeId: 'api' });
    expect(fail1.validation_passed).toBe(false);
    expect(fail1.result.exitCode).toBe(1);
    expect(fail1.node.status).toBe('RETRYING');
    expect(fail1.message).toContain('attempt 1/2');
    expect(fail1.node.error_logs).toHaveLength(1);
    expect(fail1.node.error_logs[0]).toMatchObject({ attempt: 1, exit_code: 1 });
    expect((await ok('get_ready_tasks', { project: 'demo-app' })).ready_tasks).toEqual([expect.objectContaining({ id: 'api', title: 'API', status: 'RETRYING', unblocks: 1 })]);

    await ok('start_task', { project: 'demo-app', nodeId: 'api' });
    const fail2 = await ok('validate_task_loop', { project: 'demo-app', nodeId: 'api' });
    expect(fail2.node.status).toBe('FAILED');
    expect(fail2.message).toContain('attempt 2/2');
    expect(fail2.message).toContain('reset_task_node');

    const refused = await call('start_task', { project: 'demo-app', nodeId: 'api' });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain('FAILED');

    const reset = await ok('reset_task_node', { project: 'demo-app', nodeId: 'api' });
    expect(reset.node).toMatchObject({ status: 'READY', current_attempt: 0 });
    expect(reset.node.error_logs).toHaveLength(2); // kept

    // Fix the cause; the retry passes and unlocks release.
    fs.writeFileSync(path.join(projectRoot, 'api.done'), '');
    await ok('start_task', { project: 'demo-app', nodeId: 'api' });
    const fixed = await ok('validate_task_loop', { project: 'demo-app', nodeId: 'api' });
    expect(fixed.validation_passed).toBe(true);
    expect(fixed.unlocked).toEqual(['release']);

    // A node without validation_command completes with a note that nothing ran.
    await ok('start_task', { project: 'demo-app', nodeId: 'release' });
    const release = await ok('validate_task_loop', { project: 'demo-app', nodeId: 'release' });
    expect(release.validation_passed).toBe(true);
    expect(release.result).toBeNull();
    expect(release.message).toMatch(/no validation_command|nothing was run/i);

    // Files on disk: the graph and the transition log.
    const projectDir = path.join(tmp.dir, 'data', 'projects', 'demo-app');
    const stored = JSON.parse(fs.readFileSync(path.join(projectDir, 'task_graph.json'), 'utf8'));
    expect(stored.nodes.every((n: Structured) => n.status === 'COMPLETED')).toBe(true);
    const log = fs.readFileSync(path.join(projectDir, 'transitions.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(log).toContainEqual(expect.objectContaining({ node: 'api', from: 'VALIDATING', to: 'FAILED' }));

    // Both files follow spec/task-graph.schema.json (the graph, and each log line as its `logLine` definition).
    const schema = JSON.parse(fs.readFileSync(path.join(__dirname, '../../spec/task-graph.schema.json'), 'utf8'));
    const registry = new SchemaRegistry();
    expect(registry.formatErrors(registry.validate(schema, stored).errors)).toEqual([]);
    const transition = { ...schema.definitions.logLine, definitions: schema.definitions };
    for (const line of log) expect(registry.formatErrors(registry.validate(transition, line).errors)).toEqual([]);
  });

  it('get_project_graph has a Mermaid flowchart of the DAG with a style per status', async () => {
    const graph = await ok('get_project_graph', { project: 'demo-app' });
    expect(graph.mermaid).toMatch(/^flowchart/);
    const mermaid = graph.mermaid as string;
    // Map each alias to its task id, then read the edges back as task ids.
    const alias = new Map([...mermaid.matchAll(/^\s*(\w+)\["([^:]+):/gm)].map((m) => [m[1], m[2]]));
    const edges = [...mermaid.matchAll(/^\s*(\w+) --> (\w+)\s*$/gm)].map((m) => `${alias.get(m[1])}->${alias.get(m[2])}`);
    expect(edges.sort()).toEqual(['api->release', 'setup->api', 'setup->ui', 'ui->release']);
    expect(mermaid).toMatch(/classDef completed /);
    expect(mermaid).toMatch(/classDef failed /);
    const completedLine = mermaid.split('\n').find((l) => /^\s*class .* completed$/.test(l))!;
    expect(completedLine.trim().split(/[ ,]/).filter((a) => alias.has(a)).map((a) => alias.get(a)).sort()).toEqual(['api', 'release', 'setup', 'ui']);
    expect(graph.counts.COMPLETED).toBe(4);
  });

  it('sends progress notifications while a command runs when the call has a progressToken', async () => {
    await ok('init_project_graph', {
      projectName: 'progress',
      projectRoot,
      nodes: [{ id: 'slow', title: 'Slow', depends_on: [], validation_command: 'echo first line; sleep 2.5; echo done' }],
    });
    await ok('start_task', { project: 'progress', nodeId: 'slow' });
    const updates: Array<{ progress: number; message?: string }> = [];
    const result = await call('validate_task_loop', { project: 'progress', nodeId: 'slow' }, { onprogress: (p) => updates.push(p) });
    expect((result.structuredContent as Structured).validation_passed).toBe(true);
    expect(updates.length).toBeGreaterThanOrEqual(1);
    // progress must grow (the SDK requires it) and carry the last output line
    for (let i = 1; i < updates.length; i++) expect(updates[i].progress).toBeGreaterThan(updates[i - 1].progress);
    expect(updates.some((u) => (u.message ?? '').includes('first line'))).toBe(true);
  });

  it('cancelling a call kills the command and puts the task back to IN_PROGRESS without using an attempt', async () => {
    const pidFile = path.join(projectRoot, 'cancel.pid');
    await ok('init_project_graph', {
      projectName: 'cancel',
      projectRoot,
      nodes: [{ id: 'long', title: 'Long', depends_on: [], validation_command: `sleep 60 & echo $! > '${pidFile}'; wait` }],
    });
    await ok('start_task', { project: 'cancel', nodeId: 'long' });
    const controller = new AbortController();
    const pending = conn.client.callTool({ name: 'validate_task_loop', arguments: { project: 'cancel', nodeId: 'long' } }, undefined, {
      signal: controller.signal,
    });
    const sleepPid = await readPid(pidFile);
    expect(isAlive(sleepPid)).toBe(true);
    controller.abort('user cancelled');
    await expect(pending).rejects.toThrow();

    const back = await waitFor('IN_PROGRESS after cancel', async () => {
      const n = await node('cancel', 'long');
      return n.status === 'IN_PROGRESS' ? n : undefined;
    });
    expect(back.current_attempt).toBe(0);
    expect(back.error_logs).toEqual([]);
    await waitFor('the cancelled command to be gone', () => !isAlive(sleepPid));

    // The node can be validated again (it was not left VALIDATING).
    const again = await call('reset_task_node', { project: 'cancel', nodeId: 'long' });
    expect(again.isError).toBeFalsy();
  });

  it('answers running: true after waitSeconds, and the next call returns the result of that same run', async () => {
    const runs = path.join(projectRoot, 'runs.txt');
    await ok('init_project_graph', {
      projectName: 'wait',
      projectRoot,
      nodes: [{ id: 'w', title: 'Wait', depends_on: [], validation_command: `echo run >> '${runs}'; sleep 3; echo finished` }],
    });
    await ok('start_task', { project: 'wait', nodeId: 'w' });
    const first = await ok('validate_task_loop', { project: 'wait', nodeId: 'w', waitSeconds: 1 });
    expect(first).toMatchObject({ validation_passed: null, running: true });
    expect(first.message).toContain('validate_task_loop');
    expect((await node('wait', 'w')).status).toBe('VALIDATING');

    const second = await ok('validate_task_loop', { project: 'wait', nodeId: 'w', waitSeconds: 30 });
    expect(second.validation_passed).toBe(true);
    expect(second.result.stdout).toBe('finished\n');
    expect(second.result.durationMs).toBeGreaterThanOrEqual(2500);
    expect(fs.readFileSync(runs, 'utf8')).toBe('run\n'); // one run, not two
  });

  it('two concurrent calls on one node share one run and get the same answer', async () => {
    const runs = path.join(projectRoot, 'concurrent-runs.txt');
    await ok('init_project_graph', {
      projectName: 'concurrent',
      projectRoot,
      nodes: [{ id: 'c', title: 'C', depends_on: [], validation_command: `echo run >> '${runs}'; sleep 1; exit 3` }],
    });
    await ok('start_task', { project: 'concurrent', nodeId: 'c' });
    const [a, b] = await Promise.all([
      call('validate_task_loop', { project: 'concurrent', nodeId: 'c' }),
      call('validate_task_loop', { project: 'concurrent', nodeId: 'c' }),
    ]);
    expect(a.isError).toBeFalsy();
    expect(b.structuredContent).toEqual(a.structuredContent);
    expect((a.structuredContent as Structured).result.exitCode).toBe(3);
    expect((a.structuredContent as Structured).node).toMatchObject({ status: 'RETRYING', current_attempt: 1 });
    expect(fs.readFileSync(runs, 'utf8')).toBe('run\n');
  });

  it('cancelling a call that waits for an earlier run cancels that run', async () => {
    const pidFile = path.join(projectRoot, 'cancel2.pid');
    await ok('init_project_graph', {
      projectName: 'cancel-later',
      projectRoot,
      nodes: [{ id: 'long', title: 'Long', depends_on: [], validation_command: `sleep 60 & echo $! > '${pidFile}'; wait` }],
    });
    await ok('start_task', { project: 'cancel-later', nodeId: 'long' });
    const first = await ok('validate_task_loop', { project: 'cancel-later', nodeId: 'long', waitSeconds: 0.2 });
    expect(first.running).toBe(true);
    const sleepPid = await readPid(pidFile);
    const controller = new AbortController();
    const pending = conn.client.callTool({ name: 'validate_task_loop', arguments: { project: 'cancel-later', nodeId: 'long' } }, undefined, {
      signal: controller.signal,
    });
    await new Promise((r) => setTimeout(r, 300));
    controller.abort('user cancelled');
    await expect(pending).rejects.toThrow();
    await waitFor('the command to be gone', () => !isAlive(sleepPid));
    const back = await waitFor('IN_PROGRESS after cancel', async () => {
      const n = await node('cancel-later', 'long');
      return n.status === 'IN_PROGRESS' ? n : undefined;
    });
    expect(back.current_attempt).toBe(0);
  });

  it('a timeout through the server kills the command tree and uses an attempt', async () => {
    const pidFile = path.join(projectRoot, 'timeout.pid');
    await ok('init_project_graph', {
      projectName: 'timeout',
      projectRoot,
      nodes: [{ id: 't', title: 'T', depends_on: [], timeout_ms: 500, max_attempts: 2, validation_command: `sleep 60 & echo $! > '${pidFile}'; wait` }],
    });
    await ok('start_task', { project: 'timeout', nodeId: 't' });
    const r = await ok('validate_task_loop', { project: 'timeout', nodeId: 't' });
    expect(r.validation_passed).toBe(false);
    expect(r.node).toMatchObject({ status: 'RETRYING', current_attempt: 1 });
    expect(r.node.error_logs[0]).toMatchObject({ attempt: 1, timed_out: true });
    expect(r.message).toContain('attempt 1/2');
    await waitFor('the timed-out command tree to be gone', () => !isAlive(Number(fs.readFileSync(pidFile, 'utf8').trim())));
  });

  it('refuses a projectRoot outside the allowed roots with path_not_allowed', async () => {
    const result = await call('init_project_graph', {
      projectName: 'escape',
      projectRoot: outside.dir,
      nodes: [{ id: 'a', title: 'A', depends_on: [] }],
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^path_not_allowed: /);
    expect(result._meta?.['workgraph/errorCode']).toBe('path_not_allowed');
    expect(fs.existsSync(path.join(tmp.dir, 'data', 'projects', 'escape'))).toBe(false);
  });

  it('refuses init errors: cycles (named), unknown dependencies, an existing project without replace', async () => {
    const cycle = await call('init_project_graph', {
      projectName: 'cyc',
      projectRoot,
      nodes: [
        { id: 'a', title: 'A', depends_on: ['b'] },
        { id: 'b', title: 'B', depends_on: ['a'] },
      ],
    });
    expect(cycle.isError).toBe(true);
    expect(text(cycle)).toMatch(/a -> b -> a|b -> a -> b/);
    const unknown = await call('init_project_graph', { projectName: 'unk', projectRoot, nodes: [{ id: 'a', title: 'A', depends_on: ['zzz'] }] });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('zzz');
    const again = await call('init_project_graph', { projectName: 'wait', projectRoot, nodes: [{ id: 'a', title: 'A', depends_on: [] }] });
    expect(again.isError).toBe(true);
    expect(text(again)).toContain('replace');
  });

  it('scaffold_project_docs writes the files and refuses a name escaping the folder', async () => {
    const target = path.join(tmp.dir, 'docs-out');
    const written = await ok('scaffold_project_docs', {
      targetDirectory: target,
      architectureContent: '# Architecture\n',
      phaseTasks: [{ fileName: 'phases/PHASE_1.md', content: '# Phase 1\n' }],
      testCasesContent: '# Tests\n',
    });
    expect(written.files_written).toHaveLength(3);
    expect(fs.readFileSync(path.join(target, 'ARCHITECTURE.md'), 'utf8')).toBe('# Architecture\n');
    expect(fs.readFileSync(path.join(target, 'phases', 'PHASE_1.md'), 'utf8')).toBe('# Phase 1\n');
    expect(fs.readFileSync(path.join(target, 'TEST_CASES.md'), 'utf8')).toBe('# Tests\n');

    const target2 = path.join(tmp.dir, 'docs-out-2');
    const escape = await call('scaffold_project_docs', {
      targetDirectory: target2,
      architectureContent: 'a',
      phaseTasks: [{ fileName: '../x.md', content: 'x' }],
      testCasesContent: 't',
    });
    expect(escape.isError).toBe(true);
    expect(text(escape)).toMatch(/^unsafe_path: /);
    expect(fs.existsSync(path.join(tmp.dir, 'x.md'))).toBe(false);
    expect(fs.existsSync(path.join(target2, 'ARCHITECTURE.md'))).toBe(false); // checked before the first write

    const overwrite = await call('scaffold_project_docs', { targetDirectory: target, architectureContent: 'new', phaseTasks: [], testCasesContent: 't' });
    expect(overwrite.isError).toBe(true);
    expect(fs.readFileSync(path.join(target, 'ARCHITECTURE.md'), 'utf8')).toBe('# Architecture\n');
  });

  it('every structuredContent seen matched its outputSchema', () => {
    for (const tool of ['init_project_graph', 'get_ready_tasks', 'get_project_graph', 'start_task', 'validate_task_loop', 'reset_task_node', 'scaffold_project_docs']) {
      expect([tool, schemas.checked.get(tool) ?? 0]).toEqual([tool, expect.any(Number)]);
      expect(schemas.checked.get(tool)).toBeGreaterThan(0);
    }
  });
});

describe('tasks e2e: the client MCP roots decide the allowed folders', () => {
  it('allows only the folder the client lists in roots/list', async () => {
    const tmp = tempDir('wg-e2e-roots-');
    const allowed = path.join(tmp.dir, 'allowed');
    const other = path.join(tmp.dir, 'other');
    fs.mkdirSync(allowed);
    fs.mkdirSync(other);
    // --allow-root names the parent of both: the client's roots must win.
    const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--allow-root', tmp.dir], capabilities: { roots: { listChanged: true } } });
    let listed = 0;
    conn.client.setRequestHandler(ListRootsRequestSchema, async () => {
      listed++;
      return { roots: [{ uri: pathToFileURL(allowed).href, name: 'allowed' }] };
    });
    try {
      const refused = (await conn.client.callTool({
        name: 'init_project_graph',
        arguments: { projectName: 'r1', projectRoot: other, nodes: [{ id: 'a', title: 'A', depends_on: [] }] },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(text(refused)).toMatch(/^path_not_allowed: /);
      const accepted = (await conn.client.callTool({
        name: 'init_project_graph',
        arguments: { projectName: 'r2', projectRoot: allowed, nodes: [{ id: 'a', title: 'A', depends_on: [] }] },
      })) as CallToolResult;
      expect(accepted.isError).toBeFalsy();
      expect(listed).toBeGreaterThanOrEqual(1);
    } finally {
      await conn.close();
      tmp.cleanup();
    }
  });
});

describe('tasks e2e: the server ends with its client', () => {
  async function startLongValidation(
    callTool: (name: string, args: Record<string, unknown>) => Promise<unknown>,
    projectRoot: string,
    pidFile: string,
  ): Promise<number> {
    await callTool('init_project_graph', {
      projectName: 'bye',
      projectRoot,
      nodes: [{ id: 'long', title: 'Long', depends_on: [], validation_command: `sleep 60 & echo $! > '${pidFile}'; wait` }],
    });
    await callTool('start_task', { project: 'bye', nodeId: 'long' });
    void callTool('validate_task_loop', { project: 'bye', nodeId: 'long' }).catch(() => undefined);
    return readPid(pidFile);
  }

  it('closing the SDK client while a command runs ends the server and the command tree', async () => {
    const tmp = tempDir('wg-e2e-close-');
    try {
      const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--allow-root', tmp.dir] });
      const serverPid = conn.transport.pid!;
      const sleepPid = await startLongValidation((name, args) => conn.client.callTool({ name, arguments: args }), tmp.dir, path.join(tmp.dir, 'close.pid'));
      expect(isAlive(sleepPid)).toBe(true);
      // The SDK transport ends stdin, then sends SIGTERM after 2 s: a clean exit on end of stdin is code 0, no signal.
      const proc = (conn.transport as unknown as { _process: import('node:child_process').ChildProcess })._process;
      const exited = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
      await conn.close();
      expect(await exited).toEqual({ code: 0, signal: null });
      await waitFor('the server to exit', () => !isAlive(serverPid));
      await waitFor('the command tree to be gone', () => !isAlive(sleepPid));
    } finally {
      tmp.cleanup();
    }
  });

  it('end of stdin while a command runs: the server exits 0 and kills the command tree', async () => {
    const tmp = tempDir('wg-e2e-eof-');
    const raw = new RawServer({ dataDir: path.join(tmp.dir, 'data'), args: ['--allow-root', tmp.dir] });
    try {
      await raw.initialize();
      let id = 0;
      const callTool = async (name: string, args: Record<string, unknown>) => {
        const myId = `c${++id}`;
        raw.send({ jsonrpc: '2.0', id: myId, method: 'tools/call', params: { name, arguments: args } });
        if (name === 'validate_task_loop') return undefined; // never answered: the server is ended first
        const response = await raw.response(myId);
        if ((response.result as Structured)?.isError) throw new Error(JSON.stringify(response.result));
        return response;
      };
      const sleepPid = await startLongValidation(callTool, tmp.dir, path.join(tmp.dir, 'eof.pid'));
      raw.child.stdin.end();
      let timer: NodeJS.Timeout | undefined;
      const exit = await Promise.race([
        raw.exited,
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('server did not exit')), LIVENESS_MS))),
      ]).finally(() => clearTimeout(timer));
      expect(exit).toEqual({ code: 0, signal: null });
      await waitFor('the command tree to be gone', () => !isAlive(sleepPid));
      // The task was cancelled by the shutdown, not failed: no attempt used.
      const stored = JSON.parse(fs.readFileSync(path.join(tmp.dir, 'data', 'projects', 'bye', 'task_graph.json'), 'utf8'));
      expect(stored.nodes[0]).toMatchObject({ status: 'IN_PROGRESS', current_attempt: 0 });
    } finally {
      raw.kill();
      tmp.cleanup();
    }
  });
});
