import * as fs from 'node:fs';
import * as path from 'node:path';
import { text, useTasksServer, type Structured } from './helpers/tasks-servers';
import { SchemaRegistry } from '../../src/kernel/schema-registry';

/**
 * The tasks module through the built server and the SDK's real client: the DAG (ready set, start, a passing command
 * unlocking dependents, retries, reset), its Mermaid flowchart, refused inits and roots, docs scaffolding, every answer
 * matching its output schema. (Validation commands — progress, cancel, waiting, timeouts — the client's roots and the
 * server ending with its client: tasks-commands.test.ts.)
 */

describe('tasks module e2e (built server, SDK client)', () => {
  const t = useTasksServer('wg-e2e-tasks');
  const { call, ok } = t;

  it('lists the seven task tools', async () => {
    const { tools } = await t.conn.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['init_project_graph', 'get_ready_tasks', 'get_project_graph', 'start_task', 'validate_task_loop', 'reset_task_node', 'scaffold_project_docs']),
    );
  });

  it('runs a DAG: ready set, start, a passing command unlocks dependents, a failing one retries then fails, reset', async () => {
    const graph = await ok('init_project_graph', {
      projectName: 'Demo App',
      projectRoot: t.projectRoot,
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
    fs.writeFileSync(path.join(t.projectRoot, 'api.done'), '');
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
    const projectDir = path.join(t.tmp.dir, 'data', 'projects', 'demo-app');
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

  it('refuses a projectRoot outside the allowed roots with path_not_allowed', async () => {
    const result = await call('init_project_graph', {
      projectName: 'escape',
      projectRoot: t.outside.dir,
      nodes: [{ id: 'a', title: 'A', depends_on: [] }],
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^path_not_allowed: /);
    expect(result._meta?.['workgraph/errorCode']).toBe('path_not_allowed');
    expect(fs.existsSync(path.join(t.tmp.dir, 'data', 'projects', 'escape'))).toBe(false);
  });

  it('refuses init errors: cycles (named), unknown dependencies, an existing project without replace', async () => {
    const cycle = await call('init_project_graph', {
      projectName: 'cyc',
      projectRoot: t.projectRoot,
      nodes: [
        { id: 'a', title: 'A', depends_on: ['b'] },
        { id: 'b', title: 'B', depends_on: ['a'] },
      ],
    });
    expect(cycle.isError).toBe(true);
    expect(text(cycle)).toMatch(/a -> b -> a|b -> a -> b/);
    const unknown = await call('init_project_graph', { projectName: 'unk', projectRoot: t.projectRoot, nodes: [{ id: 'a', title: 'A', depends_on: ['zzz'] }] });
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toContain('zzz');
    const again = await call('init_project_graph', { projectName: 'Demo App', projectRoot: t.projectRoot, nodes: [{ id: 'a', title: 'A', depends_on: [] }] });
    expect(again.isError).toBe(true);
    expect(text(again)).toContain('replace');
  });

  it('scaffold_project_docs writes the files and refuses a name escaping the folder', async () => {
    const target = path.join(t.tmp.dir, 'docs-out');
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

    const target2 = path.join(t.tmp.dir, 'docs-out-2');
    const escape = await call('scaffold_project_docs', {
      targetDirectory: target2,
      architectureContent: 'a',
      phaseTasks: [{ fileName: '../x.md', content: 'x' }],
      testCasesContent: 't',
    });
    expect(escape.isError).toBe(true);
    expect(text(escape)).toMatch(/^unsafe_path: /);
    expect(fs.existsSync(path.join(t.tmp.dir, 'x.md'))).toBe(false);
    expect(fs.existsSync(path.join(target2, 'ARCHITECTURE.md'))).toBe(false); // checked before the first write

    const overwrite = await call('scaffold_project_docs', { targetDirectory: target, architectureContent: 'new', phaseTasks: [], testCasesContent: 't' });
    expect(overwrite.isError).toBe(true);
    expect(fs.readFileSync(path.join(target, 'ARCHITECTURE.md'), 'utf8')).toBe('# Architecture\n');
  });

  it('every structuredContent seen matched its outputSchema', () => {
    for (const tool of ['init_project_graph', 'get_ready_tasks', 'get_project_graph', 'start_task', 'validate_task_loop', 'reset_task_node', 'scaffold_project_docs']) {
      expect([tool, t.schemas.checked.get(tool) ?? 0]).toEqual([tool, expect.any(Number)]);
      expect(t.schemas.checked.get(tool)).toBeGreaterThan(0);
    }
  });
});
