import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './helpers/server-process';

/**
 * Every tool the built server lists (built-in modules and the example graphs) follows the MCP rules — name pattern,
 * object input and output schemas that compile, annotations — and every structuredContent a run of each tool with
 * valid arguments produces validates against the tool's outputSchema (checked here with our own Ajv, not only by the
 * SDK client).
 */

const REPO = path.resolve(__dirname, '../..');
const GRAPHS = ['examples/graphs/sum_to_n.yaml', 'examples/graphs/count_files.yaml'].map((g) => path.join(REPO, g));
/** MCP tool names (2025-11-25): 1-64 characters of letters, digits, `_`, `-` and `.`. */
const TOOL_NAME = /^[a-zA-Z0-9_.-]{1,64}$/;

type Result = { structuredContent?: Record<string, unknown>; isError?: boolean; content: Array<{ type: string; text?: string }>; _meta?: Record<string, unknown> };

describe('MCP tool rules (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let root: string;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let tools: Tool[];
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const outputValidators = new Map<string, ValidateFunction>();
  /** Tool name → how many structuredContent values were checked against its outputSchema. */
  const observed = new Map<string, number>();

  beforeAll(async () => {
    tmp = tempDir('wg-rules-');
    root = path.join(tmp.dir, 'root');
    fs.mkdirSync(root);
    conn = await connectClient({
      dataDir: path.join(tmp.dir, 'data'),
      args: ['--allow-root', root, ...GRAPHS.flatMap((g) => ['--graphs', g])],
    });
    tools = (await conn.client.listTools()).tools;
    for (const t of tools) if (t.outputSchema) outputValidators.set(t.name, ajv.compile(t.outputSchema));
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    tmp.cleanup();
  });

  /** Calls a tool, expects success, and validates its structuredContent against the outputSchema. */
  async function call(name: string, args: Record<string, unknown>): Promise<Result> {
    const result = (await conn.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as Result;
    if (result.isError) throw new Error(`${name} failed: ${result.content[0]?.text}`);
    const validate = outputValidators.get(name);
    if (!validate) throw new Error(`no output validator for ${name}`);
    if (!validate(result.structuredContent)) {
      throw new Error(`${name} structuredContent does not match its outputSchema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(result.structuredContent).slice(0, 1000)}`);
    }
    expect(JSON.parse(result.content[0].text!)).toEqual(result.structuredContent);
    observed.set(name, (observed.get(name) ?? 0) + 1);
    return result;
  }

  it('lists tools from every module', () => {
    const modules = ['workflow_next', 'get_ready_tasks', 'list_nodes', 'graph_inspect', 'sum_to_n', 'count_files'];
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(modules));
  });

  it('every tool: valid name, object input and output schemas that compile with Ajv, all four annotation hints', () => {
    const names = new Set<string>();
    for (const t of tools) {
      expect(t.name).toMatch(TOOL_NAME);
      expect(names.has(t.name)).toBe(false);
      names.add(t.name);
      expect(typeof t.description).toBe('string');
      expect(t.description!.length).toBeGreaterThan(10);
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
      expect(() => ajv.compile(t.inputSchema)).not.toThrow();
      expect(() => ajv.compile(t.outputSchema!)).not.toThrow();
      expect(t.annotations).toBeDefined();
      const missing = (['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const).filter((h) => typeof t.annotations![h] !== 'boolean');
      expect({ tool: t.name, missingHints: missing }).toEqual({ tool: t.name, missingHints: [] });
      // A read-only tool cannot be destructive (the MCP spec ignores destructiveHint then; ours should agree).
      if (t.annotations!.readOnlyHint) expect(t.annotations!.destructiveHint).toBe(false);
    }
  });

  it('workflow tools: every structuredContent matches its outputSchema', async () => {
    const list = await call('workflow_list', {});
    for (const w of (list.structuredContent!.workflows as Array<{ id: string }>)) {
      await call('workflow_get', { id: w.id });
      await call('workflow_get', { id: w.id, mode: 'metadata' });
      await call('workflow_get', { id: w.id, mode: 'preview' });
      // Walk each bundled workflow to its end, every answer checked.
      let completed: string[] = [];
      let context: Record<string, unknown> = { failureKind: 'deterministic', criteria: ['a', 'b'], files: ['x.ts'], changedFiles: ['x.ts'] };
      for (let i = 0; i < 60; i++) {
        const next = (await call('workflow_next', { workflowId: w.id, completedSteps: completed, context })).structuredContent!;
        if (next.isComplete) break;
        const step = next.step as { id: string; completionId: string };
        await call('workflow_validate', { workflowId: w.id, stepId: step.completionId, output: 'the test failed: expected 1, got 2', context: next.context });
        completed = [...completed, step.completionId];
        context = next.context as Record<string, unknown>;
      }
    }
    await call('workflow_validate_json', { workflowJson: fs.readFileSync(path.join(REPO, 'workflows/fix-failing-test.json'), 'utf8') });
    await call('workflow_validate_json', { workflowJson: '{"id": "x", "steps": [' });
    await call('workflow_validate_json', { workflowJson: '{"id": "Bad Id", "name": "n", "description": "d", "version": "1", "steps": []}' });
    await call('workflow_get_schema', {});
  }, 120_000);

  it('workflow session tools: every structuredContent matches its outputSchema', async () => {
    const started = (await call('workflow_start', { workflowId: 'review-change', goal: 'review x', workspacePath: root, context: { files: ['x.ts'], changedFiles: ['x.ts'] } })).structuredContent!;
    let token = started.continueToken as string;
    const cp = (await call('workflow_checkpoint', { continueToken: token, note: 'start' })).structuredContent!;
    let statuses = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const a = (await call('workflow_continue', { continueToken: token, output: { notesMarkdown: 'scope: x.ts; security: none; tests pass; verdict: approve' } })).structuredContent!;
      statuses.add(a.status as string);
      token = a.continueToken as string;
      if (a.isComplete) break;
    }
    expect([...statuses].some((s) => s === 'advanced' || s === 'blocked')).toBe(true);
    await call('workflow_continue', { continueToken: cp.checkpointToken as string, output: { notesMarkdown: 'again' } });
    await call('workflow_resume', {});
    await call('workflow_resume', { query: 'review', status: ['active', 'needs_attention', 'complete'] });
    await call('workflow_sessions', {});
    await call('workflow_sessions', { status: 'active', limit: 1 });
    await call('workflow_session', { sessionId: started.sessionId as string });
  }, 120_000);

  it('tasks tools: every structuredContent matches its outputSchema', async () => {
    const nodes = [
      { id: 'ok', title: 'Passes', validation_command: 'echo fine' },
      { id: 'bad', title: 'Fails', validation_command: 'echo broken >&2; exit 3', max_attempts: 2 },
      { id: 'free', title: 'No command' },
      { id: 'after', title: 'After ok', depends_on: ['ok'] },
    ];
    await call('init_project_graph', { projectName: 'Rules Project', projectRoot: root, nodes });
    await call('init_project_graph', { projectName: 'Rules Project', projectRoot: root, nodes, replace: true });
    await call('get_ready_tasks', { project: 'Rules Project' });
    await call('start_task', { project: 'rules-project', nodeId: 'ok' });
    const passed = await call('validate_task_loop', { project: 'rules-project', nodeId: 'ok' });
    expect(passed.structuredContent!.validation_passed).toBe(true);
    expect(passed.structuredContent!.unlocked).toEqual(['after']);
    await call('start_task', { project: 'rules-project', nodeId: 'bad' });
    const failed = await call('validate_task_loop', { project: 'rules-project', nodeId: 'bad' });
    expect(failed.structuredContent!.validation_passed).toBe(false);
    await call('start_task', { project: 'rules-project', nodeId: 'free' });
    await call('validate_task_loop', { project: 'rules-project', nodeId: 'free' });
    await call('reset_task_node', { project: 'rules-project', nodeId: 'bad' });
    await call('reset_task_node', { project: 'rules-project', nodeId: 'ok' });
    await call('get_project_graph', { project: 'rules-project' });
    // A command still running at waitSeconds: the "running" answer.
    await call('init_project_graph', { projectName: 'slow', projectRoot: root, nodes: [{ id: 's', title: 'Slow', validation_command: 'sleep 3' }] });
    await call('start_task', { project: 'slow', nodeId: 's' });
    const running = await call('validate_task_loop', { project: 'slow', nodeId: 's', waitSeconds: 0 });
    expect(running.structuredContent!.running).toBe(true);
    await call('validate_task_loop', { project: 'slow', nodeId: 's', waitSeconds: 30 });
    // The living plan: add, edit, split, remove, claim, release, details.
    await call('init_project_graph', { projectName: 'plan', projectRoot: root, nodes: [{ id: 'p1', title: 'First' }] });
    const added = await call('add_tasks', { project: 'plan', nodes: [{ id: 'p2', title: 'Second', depends_on: ['p1'] }, { id: 'p3', title: 'Third' }] });
    await call('update_task', { project: 'plan', nodeId: 'p3', priority: 'high', tags: ['x'], expectedRevision: added.structuredContent!.revision });
    await call('split_task', { project: 'plan', nodeId: 'p2', into: [{ id: 'p2a', title: 'Second, part a' }, { id: 'p2b', title: 'Second, part b', depends_on: ['p2a'] }] });
    await call('remove_tasks', { project: 'plan', nodeIds: ['p2b'] });
    const claimed = await call('claim_next_task', { project: 'plan', agent: 'rules' });
    expect(claimed.structuredContent!.claimed).toBe(true);
    expect((claimed.structuredContent!.node as { id: string }).id).toBe('p3');
    await call('release_task', { project: 'plan', nodeId: 'p3', agent: 'rules' });
    const details = await call('get_task_details', { project: 'plan', nodeId: 'p3' });
    expect((details.structuredContent!.history as unknown[]).length).toBeGreaterThan(0);
    await call('scaffold_project_docs', {
      targetDirectory: path.join(root, 'docs'),
      architectureContent: '# Architecture',
      phaseTasks: [{ fileName: 'PHASE_1.md', content: '# Phase 1' }],
      testCasesContent: '# Tests',
    });
  }, 120_000);

  it('knowledge tools: every structuredContent matches its outputSchema', async () => {
    const ctx = '/work/rules-app';
    const added = await call('add_nodes', {
      projectContext: ctx,
      nodes: [
        { id: 'n1', thought: 'idea\nmore', role: 'actor', tags: ['a'], artifacts: [{ name: 'f', path: 'src/f.ts' }] },
        { id: 'n2', thought: 'review', role: 'critic', parents: ['n1'], verdict: 'approved', verdictReason: 'ok', target: 'n1' },
        { id: 's1', thought: 'summary of n1 and n2', role: 'summary', summarizedSegment: ['n1', 'n2'] },
      ],
    });
    expect(added.structuredContent!.ids).toEqual(['n1', 'n2', 's1']);
    await call('list_nodes', { projectContext: ctx });
    await call('list_nodes', { projectContext: ctx, limit: 1 });
    await call('list_nodes', { projectContext: ctx, tags: ['a'], role: 'actor' });
    await call('get_node', { projectContext: ctx, id: 'n1' });
    const found = await call('search_nodes', { projectContext: ctx, query: 'review' });
    expect((found.structuredContent!.hits as Array<{ id: string }>).map((r) => r.id)).toEqual(['n2']);
    const refused = await call('delete_nodes', { projectContext: ctx, nodeIds: ['n1'] });
    expect(refused.structuredContent!.success).toBe(false);
    const deleted = await call('delete_nodes', { projectContext: ctx, nodeIds: ['n1', 'n2'], reason: 'test', recalculateSummaries: true });
    expect(deleted.structuredContent!.success).toBe(true);
    await call('restore_nodes', { projectContext: ctx, nodeIds: ['n1', 'n2'] });
  }, 120_000);

  it('graph tools: every structuredContent matches its outputSchema', async () => {
    const sum = await call('sum_to_n', { n: 10 });
    expect(sum.structuredContent).toEqual({ sum: 55 });
    const executionId = sum._meta?.['workgraph/executionId'] as string;
    expect(typeof executionId).toBe('string');
    await call('graph_inspect', { executionId });
    await call('graph_inspect', { executionId, executionIndex: 1 });
    await call('graph_inspect', { executionId, offset: 2, limit: 3 });
    const count = await call('count_files', { directory: path.join(REPO, 'examples/graphs') });
    expect(count.structuredContent!.count).toBe(fs.readdirSync(path.join(REPO, 'examples/graphs'), { withFileTypes: true }).filter((e) => e.isFile()).length);
  }, 120_000);

  it('every listed tool was run and its structuredContent checked', () => {
    const unchecked = tools.map((t) => t.name).filter((n) => !observed.has(n));
    expect(unchecked).toEqual([]);
  });
});
