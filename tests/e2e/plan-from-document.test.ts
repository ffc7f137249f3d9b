import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectClient, tempDir } from './helpers/server-process';

/**
 * Issue 22's plan-from-document, through the built server and the SDK's client: the bundled workflow walked as a
 * durable session from a document to a `wr.task_plan` artifact. The server checks the plan beyond its JSON Schema
 * with the tasks module's own rules (a cycle is named, an unknown dependency and a task without a command are
 * refused), accepts a good plan, and that plan loads as it is with init_project_graph; the stateless workflow_next
 * checks the same; mode add is checked against the ids it names and loads with add_tasks.
 */
type Answer = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const goodNodes = [
  { id: 'index', title: 'Build the search index', validation_command: 'test -f index.built', priority: 'high' },
  { id: 'query', title: 'Answer queries from the index', depends_on: ['index'], validation_command: 'test -f query.built' },
  { id: 'review', title: 'Review the ranking with the product owner', depends_on: ['query'] },
];
const plan = (nodes: unknown[], extra: Record<string, unknown> = {}) => ({ kind: 'wr.task_plan', version: 1, projectName: 'Search', source: 'docs/prd.md', nodes, ...extra });

describe('plan-from-document: a document to a checked task plan, loaded with init_project_graph', () => {
  let tmp: ReturnType<typeof tempDir>;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let workspace: string;
  const call = async (name: string, args: Record<string, unknown>): Promise<{ ok: boolean; value: Answer; text: string }> => {
    const r = (await conn.client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Answer; content: Array<{ text?: string }> };
    return { ok: !r.isError, value: r.structuredContent ?? {}, text: r.content[0]?.text ?? '' };
  };

  beforeAll(async () => {
    tmp = tempDir('wg-plan-');
    workspace = path.join(tmp.dir, 'repo');
    fs.mkdirSync(path.join(workspace, 'docs'), { recursive: true });
    fs.writeFileSync(path.join(workspace, 'docs', 'prd.md'), '# Search\nUsers find documents by words. Acceptance: a query answers in 100 ms.\n');
    conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--allow-root', tmp.dir] });
  });
  afterAll(async () => {
    await conn.close();
    tmp.cleanup();
  });

  it('is bundled and listed', async () => {
    const list = await call('workflow_list', {});
    expect(list.value.workflows).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'plan-from-document', source: 'bundled', format: 'current' })]));
    const schema = await call('workflow_get_schema', { contract: 'wr.contracts.task_plan' });
    expect(schema.ok).toBe(true);
    expect(schema.value.schema.properties.nodes.items.required).toEqual(['id', 'title']);
  });

  it('walked as a session: a cycle is blocked with the cycle named, then a good plan is accepted and loads with init_project_graph', async () => {
    const started = await call('workflow_start', { workflowId: 'plan-from-document', workspacePath: workspace, context: { document: 'docs/prd.md' } });
    expect(started.ok).toBe(true);
    expect(started.value.guidance.prompt).toContain('Read docs/prd.md');
    let token = started.value.continueToken as string;
    const handedOut: string[] = [started.value.step.id];
    for (const [id, notes] of [
      ['read-document', 'Goal: users find documents by words. Scope: indexing and querying; out of scope: ranking by clicks. Acceptance: a query answers in 100 ms.'],
      ['cut-tasks', 'index: build the search index (test -f index.built); query: answer queries (test -f query.built); review: ranking review with the product owner (no command).'],
      ['order-tasks', 'query depends on index; review depends on query. index is high priority.'],
    ]) {
      const r = await call('workflow_continue', { continueToken: token, output: { notesMarkdown: notes } });
      expect(r.ok).toBe(true);
      expect(r.value.status).toBe('advanced');
      expect(r.value.step.id).not.toBe(id);
      handedOut.push(r.value.step.id);
      token = r.value.continueToken;
    }
    expect(handedOut).toEqual(['read-document', 'cut-tasks', 'order-tasks', 'hand-in-plan']);

    // A cycle (index -> query -> index), a dependency on a task that is not in the plan, a task without a command.
    const cyclic = goodNodes.map((n) => (n.id === 'index' ? { ...n, depends_on: ['query'] } : n));
    const bad = await call('workflow_continue', {
      continueToken: token,
      output: { notesMarkdown: 'the plan', artifacts: [plan([...cyclic, { id: 'docs', title: 'Write the docs', depends_on: ['nowhere'] }], { uncheckedTasks: [{ id: 'review', reason: 'A person decides.' }] })] },
    });
    expect(bad.ok).toBe(true);
    expect(bad.value.status).toBe('blocked');
    const messages = (bad.value.blockers as Array<{ code: string; pointer: string; message: string }>).map((b) => `${b.code} ${b.pointer}: ${b.message}`);
    expect(messages).toHaveLength(3);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^contract_artifact_invalid \/output\/artifacts\/0\/nodes\/\d\/depends_on: .*dependency cycle: (index -> query -> index|query -> index -> query)$/),
        "contract_artifact_invalid /output/artifacts/0/nodes/3/depends_on/0: wr.task_plan artifact: /nodes/3/depends_on/0 task 'docs' depends on unknown task 'nowhere' (not in the plan)",
        expect.stringMatching(/^contract_artifact_invalid \/output\/artifacts\/0\/nodes\/3\/validation_command: .*task 'docs' has no validation_command/),
      ]),
    );
    expect(bad.value.guidance.prompt).toContain('dependency cycle');

    const accepted = await call('workflow_continue', {
      continueToken: token,
      output: { notesMarkdown: 'the plan, fixed', artifacts: [plan(goodNodes, { uncheckedTasks: [{ id: 'review', reason: 'A person decides.' }] })] },
    });
    expect(accepted.ok).toBe(true);
    expect(accepted.value.status).toBe('complete');

    // The accepted plan is what init_project_graph takes, as it is.
    const loaded = await call('init_project_graph', { projectName: 'Search', projectRoot: workspace, nodes: goodNodes });
    expect(loaded.ok).toBe(true);
    const graph = await call('get_project_graph', { project: 'Search' });
    expect(graph.value.nodes.map((n: { id: string; status: string }) => `${n.id}:${n.status}`)).toEqual(['index:READY', 'query:PENDING', 'review:PENDING']);
  });

  it('workflow_next (stateless) checks the same; mode add is checked against existingTaskIds and loads with add_tasks', async () => {
    const done = ['read-document', 'cut-tasks', 'order-tasks', 'hand-in-plan'];
    const added = [{ id: 'cache', title: 'Cache frequent queries', depends_on: ['query'], validation_command: 'true' }];
    const refused = await call('workflow_next', { workflowId: 'plan-from-document', completedSteps: done, output: { artifacts: [plan(added, { mode: 'add', existingTaskIds: ['index'] })] } });
    expect(refused.value.blocked).toBe(true);
    expect(refused.value.blockers.map((b: { message: string }) => b.message)).toEqual(["wr.task_plan artifact: /nodes/0/depends_on/0 task 'cache' depends on unknown task 'query' (not in the plan nor in existingTaskIds)"]);
    const clash = await call('workflow_next', { workflowId: 'plan-from-document', completedSteps: done, output: { artifacts: [plan([{ ...added[0], id: 'index' }], { mode: 'add', existingTaskIds: ['index', 'query'] })] } });
    expect(clash.value.blockers.map((b: { message: string }) => b.message)).toEqual(["wr.task_plan artifact: /nodes/0/id task id 'index' is already in the project (existingTaskIds)"]);
    const ok = await call('workflow_next', { workflowId: 'plan-from-document', completedSteps: done, output: { artifacts: [plan(added, { mode: 'add', existingTaskIds: ['index', 'query', 'review'] })] } });
    expect(ok.value.blocked).toBeFalsy();
    expect(ok.value.isComplete).toBe(true);
    const loaded = await call('add_tasks', { project: 'Search', nodes: added });
    expect(loaded.ok).toBe(true);
    expect(loaded.value.nodes.map((n: { id: string; status: string }) => `${n.id}:${n.status}`)).toEqual(['cache:PENDING']);
  });
});
