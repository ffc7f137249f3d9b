import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ListRootsRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { spawnSync } from 'node:child_process';
import { CLI, connectClient, serverEnv, tempDir } from './helpers/server-process';

const WORKFLOWS = path.resolve(__dirname, '../fixtures/session-workflows');

type Answer = Record<string, any>;

/** A client whose first MCP root is `workspace` (the server takes it as the session's workspace). */
async function clientIn(dataDir: string, workspace: string) {
  const conn = await connectClient({ dataDir, args: ['--workflows', WORKFLOWS], capabilities: { roots: { listChanged: true } } });
  conn.client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: pathToFileURL(workspace).href, name: 'ws' }] }));
  const call = async (name: string, args: Record<string, unknown>): Promise<Answer> => {
    const r = (await conn.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as { isError?: boolean; structuredContent?: Answer; content: Array<{ text?: string }> };
    if (r.isError) throw new Error(r.content[0]?.text);
    return r.structuredContent!;
  };
  return { ...conn, call };
}

describe('durable workflow sessions through the SDK client (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('wg-sess-')));
  afterEach(() => tmp.cleanup());

  it('start → continue through a loop and a blocked step → close the client → a new client resumes by workspace and finishes', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const workspace = path.join(tmp.dir, 'repo');
    fs.mkdirSync(workspace);
    const first = await clientIn(dataDir, workspace);
    let sessionId: string;
    try {
      const s = await first.call('workflow_start', { workflowId: 'session-demo', goal: 'rename the parser', context: { goal: 'rename', files: ['a.ts', 'b.ts'] } });
      sessionId = s.sessionId;
      expect(s.step.completionId).toBe('plan');
      let a = await first.call('workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'planned' } });
      expect(a.step.completionId).toBe('per-file[0].edit');
      a = await first.call('workflow_continue', { continueToken: a.continueToken, output: { notesMarkdown: 'edited a.ts' } });
      expect(a.step.completionId).toBe('per-file[1].edit');
      a = await first.call('workflow_continue', { continueToken: a.continueToken, output: { notesMarkdown: 'edited b.ts' } });
      expect(a.step.completionId).toBe('report');
      const blocked = await first.call('workflow_continue', { continueToken: a.continueToken, output: { notesMarkdown: 'almost' } });
      expect(blocked.status).toBe('blocked');
      expect(blocked.blockers[0].message).toContain('DONE');
    } finally {
      await first.close();
    }

    const second = await clientIn(dataDir, workspace);
    try {
      const r = await second.call('workflow_resume', {});
      expect(r.candidates).toHaveLength(1);
      const c = r.candidates[0];
      expect(c).toMatchObject({ sessionId, workspacePath: workspace, status: 'active' });
      expect(c.reasons).toContain('same workspace');
      expect(c.step.completionId).toBe('report');
      expect(c.recap.map((n: { notes: string }) => n.notes)).toEqual(['planned', 'edited a.ts', 'edited b.ts']);
      const done = await second.call('workflow_continue', { continueToken: c.continueToken, output: { notesMarkdown: 'renamed; DONE' } });
      expect(done.status).toBe('complete');
      expect(done.isComplete).toBe(true);
      const list = await second.call('workflow_sessions', { status: 'complete' });
      expect(list.sessions.map((x: { sessionId: string }) => x.sessionId)).toEqual([sessionId]);
      const t = await second.call('workflow_session', { sessionId });
      expect(t.events.map((e: { kind: string }) => e.kind)).toEqual([
        'session_started', 'step_completed', 'step_completed', 'step_completed', 'output_blocked', 'session_resumed', 'step_completed', 'session_completed',
      ]);
    } finally {
      await second.close();
    }
  }, 180_000);

  it('a log line cut by a crash: ignored and logged on stderr, shown in the timeline and by `workgraph session`; the run goes on', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const conn = await clientIn(dataDir, tmp.dir);
    try {
      const s = await conn.call('workflow_start', { workflowId: 'session-demo', context: { files: ['a.ts'] } });
      const a = await conn.call('workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'planned' } });
      // What a crash in the middle of an append leaves: the start of a line, no newline.
      fs.appendFileSync(path.join(dataDir, 'sessions', s.sessionId, 'events.ndjson'), '{"kind":"step_completed","at":"2026-');
      const b = await conn.call('workflow_continue', { continueToken: a.continueToken, output: { notesMarkdown: 'edited a.ts' } });
      expect(b.step.completionId).toBe('report');
      const t = await conn.call('workflow_session', { sessionId: s.sessionId });
      expect(t.events.map((e: { kind: string }) => e.kind)).toEqual(['session_started', 'step_completed', 'step_completed']);
      expect(t.damaged).toEqual([expect.objectContaining({ line: 3, excerpt: expect.stringContaining('"kind":"step_completed"') })]);
      expect(conn.stderr()).toContain('session log: skipped a damaged line');
      const cli = spawnSync(process.execPath, [CLI, 'session', s.sessionId], { encoding: 'utf8', env: serverEnv({ dataDir }) });
      expect(cli.status).toBe(0);
      expect(cli.stdout).toMatch(/log line 3 skipped/);
    } finally {
      await conn.close();
    }
  }, 120_000);

  it('offers every workflow as a prompt that tells the agent to call workflow_start, and sessions as subscribable resources', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const conn = await clientIn(dataDir, tmp.dir);
    try {
      const { prompts } = await conn.client.listPrompts();
      const demo = prompts.find((p) => p.name === 'session-demo');
      expect(demo?.arguments?.map((a) => a.name)).toContain('goal');
      const got = await conn.client.getPrompt({ name: 'session-demo', arguments: { goal: 'ship it' } });
      const text = (got.messages[0].content as { text: string }).text;
      expect(text).toContain('workflow_start');
      expect(text).toContain('"goal":"ship it"');
      expect((await conn.call('workflow_sessions', {})).total).toBe(0);
      await expect(conn.client.getPrompt({ name: 'no-such-workflow' })).rejects.toThrow(/not_found/);

      const s = await conn.call('workflow_start', { workflowId: 'session-demo', context: { files: [] } });
      const uri = `workgraph://sessions/${s.sessionId}`;
      const { resources } = await conn.client.listResources();
      expect(resources.map((r) => r.uri)).toContain(uri);
      const read = await conn.client.readResource({ uri });
      expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ sessionId: s.sessionId, status: 'active' });

      const updated: string[] = [];
      conn.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => {
        updated.push(n.params.uri);
      });
      await conn.client.subscribeResource({ uri });
      await conn.call('workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'p' } });
      for (let i = 0; i < 100 && !updated.length; i++) await new Promise((r) => setTimeout(r, 50));
      expect(updated).toContain(uri);

      const root = path.join(tmp.dir, 'proj');
      fs.mkdirSync(root);
      await conn.call('init_project_graph', { projectName: 'demo', projectRoot: root, nodes: [{ id: 'a', title: 'A', depends_on: [] }] });
      const tasksUri = 'workgraph://projects/demo/tasks';
      // Listed beside the sessions (resources/list offered only sessions before).
      const listed = (await conn.client.listResources()).resources;
      expect(listed.map((r) => r.uri)).toEqual([uri, tasksUri]);
      expect(listed[1]).toMatchObject({ name: 'tasks demo', title: 'demo: task graph (0 of 1 completed)', mimeType: 'application/json' });
      await conn.client.subscribeResource({ uri: tasksUri });
      const tasks = await conn.client.readResource({ uri: tasksUri });
      expect(tasks.contents.map((c) => c.mimeType)).toEqual(['application/json', 'text/vnd.mermaid']);
      expect((tasks.contents[1] as { text: string }).text).toMatch(/^flowchart/);
      await conn.call('start_task', { project: 'demo', nodeId: 'a' });
      for (let i = 0; i < 100 && !updated.includes(tasksUri); i++) await new Promise((r) => setTimeout(r, 50));
      expect(updated).toContain(tasksUri);
      await expect(conn.client.readResource({ uri: 'workgraph://nope' })).rejects.toThrow(/unknown resource/);
    } finally {
      await conn.close();
    }
  }, 180_000);

  it("a current-format session blocked by its output contract answers blockers whose `expected` is an example artifact, and the SDK client accepts the answer against the tool's output schema", async () => {
    // The SDK client checks structuredContent against the declared outputSchema: an `expected` declared a string but
    // answered as an object made callTool throw here, before the declaration was typed from one schema.
    const conn = await clientIn(path.join(tmp.dir, 'data'), tmp.dir);
    try {
      await conn.client.listTools(); // the client validates answers against the output schemas it has listed
      const s = await conn.call('workflow_start', { workflowId: 'wr.session-gate', goal: 'ship' });
      const gate = await conn.call('workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'changed it' } });
      expect(gate.step.completionId).toBe('gate');
      const blocked = await conn.call('workflow_continue', { continueToken: gate.continueToken, output: { notesMarkdown: 'looks fine' } });
      expect(blocked.status).toBe('blocked');
      expect(blocked.blockers[0]).toMatchObject({ code: 'contract_artifact_missing', expected: { kind: 'wr.gate_verdict' } });
    } finally {
      await conn.close();
    }
  }, 120_000);
});
