import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HttpServerProcess, type HttpConn } from './helpers/http-server';
import { tempDir } from './helpers/server-process';

/**
 * Workspace workflows (issue 24): a session's workspace may carry its own workflows in `.workrail/workflows/` and
 * `.workgraph/workflows/`. Through the built server over HTTP, with two identities confined to their own roots:
 * workflow_list {workspacePath} lists them with source `workspace` (a bundled id shadowed with a warning, a bad file
 * reported by name while the rest is served), workflow_start runs them and pins them, the stateless tools see them,
 * and a workspace outside the caller's roots is refused for listing and never read for a session.
 */
const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdefgh';

type Answer = CallToolResult & { structuredContent?: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  return (await client.callTool({ name, arguments: args })) as Answer;
}
async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await call(client, name, args);
  if (r.isError) throw new Error(`${name}: ${text(r)}`);
  return r.structuredContent!;
}
const text = (r: CallToolResult) => (r.content as Array<{ text: string }>)[0].text;
const code = (r: CallToolResult) => (r._meta as Record<string, unknown> | undefined)?.['workgraph/errorCode'];

const teamFlow = {
  id: 'team-flow',
  name: 'Team flow',
  description: 'A workflow that lives in the workspace.',
  version: '1.0.0',
  steps: [
    { id: 'plan', title: 'Plan', prompt: 'Write the plan for {{goal}}.' },
    { id: 'ship', title: 'Ship', prompt: 'Ship it and say SHIPPED.', validationCriteria: { type: 'contains', value: 'SHIPPED' } },
  ],
};
const teamFix = {
  id: 'fix-failing-test',
  name: 'Team fix',
  description: "This team's own way to fix a failing test.",
  version: '9.0.0',
  steps: [{ id: 'only', title: 'Fix it', prompt: 'Fix the test the team way.' }],
};

describe('workspace workflows (.workrail/workflows, .workgraph/workflows) through the built server', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: HttpServerProcess;
  let workspace: string;
  let bobRoot: string;
  let alice: Client;
  let bob: Client;
  const conns: HttpConn[] = [];

  beforeAll(async () => {
    tmp = tempDir('wg-wsflows-');
    const base = tmp.dir;
    workspace = path.join(base, 'alice', 'repo');
    bobRoot = path.join(base, 'bob');
    fs.mkdirSync(path.join(workspace, '.workrail', 'workflows'), { recursive: true });
    fs.mkdirSync(path.join(workspace, '.workgraph', 'workflows', 'team'), { recursive: true });
    fs.mkdirSync(bobRoot, { recursive: true });
    fs.writeFileSync(path.join(workspace, '.workrail', 'workflows', 'fix.json'), JSON.stringify(teamFix));
    fs.writeFileSync(path.join(workspace, '.workgraph', 'workflows', 'team', 'flow.json'), JSON.stringify(teamFlow));
    fs.writeFileSync(path.join(workspace, '.workgraph', 'workflows', 'broken.json'), '{"id": "broken",');
    fs.writeFileSync(path.join(workspace, '.workgraph', 'workflows', 'no-steps.json'), JSON.stringify({ ...teamFlow, id: 'no-steps', steps: [] }));
    const tokens = path.join(base, 'tokens');
    fs.writeFileSync(tokens, [`${ALICE} name=alice roots=${path.join(base, 'alice')} scopes=read,write,run`, `${BOB} name=bob roots=${bobRoot} scopes=read,write,run`].join('\n'));
    server = await HttpServerProcess.start({ dataDir: path.join(base, 'data'), args: ['--auth-token-file', tokens, '--allow-root', base] });
    for (const token of [ALICE, BOB]) conns.push(await server.connect({ token }));
    [alice, bob] = conns.map((c) => c.client);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(conns.map((c) => c.close()));
    server?.kill();
    tmp?.cleanup();
  });

  it('workflow_list {workspacePath} lists them with source workspace, warns of the shadowed bundled id, names each bad file', async () => {
    const plain = await ok(alice, 'workflow_list', {});
    expect(plain.workflows.map((w: { id: string }) => w.id)).not.toContain('team-flow');
    expect(plain.workflows.find((w: { id: string }) => w.id === 'fix-failing-test')).toMatchObject({ source: 'bundled', name: 'Fix a bug from a failing test' });

    const listed = await ok(alice, 'workflow_list', { workspacePath: workspace });
    const byId = new Map(listed.workflows.map((w: { id: string }) => [w.id, w]));
    expect(byId.get('team-flow')).toMatchObject({ source: 'workspace', name: 'Team flow' });
    expect(byId.get('fix-failing-test')).toMatchObject({ source: 'workspace', name: 'Team fix', version: '9.0.0', shadows: 'bundled' });
    // The other bundled workflows are still served beside them.
    expect(byId.get('review-change')).toMatchObject({ source: 'bundled' });
    expect(listed.warnings).toEqual([`workspace workflow 'fix-failing-test' shadows the bundled workflow of the same id: this workspace gets its own file`]);
    const invalid = listed.invalid.filter((e: { source: string }) => e.source === 'workspace');
    expect(invalid.map((e: { file: string }) => e.file).sort()).toEqual(
      [path.join(workspace, '.workgraph', 'workflows', 'broken.json'), path.join(workspace, '.workgraph', 'workflows', 'no-steps.json')].sort(),
    );
    for (const e of invalid) expect(e.reason).not.toContain('\n');
    expect(invalid.find((e: { id: string }) => e.id === 'broken').reason).toMatch(/^invalid JSON at line 1, column \d+/);
    expect(invalid.find((e: { id: string }) => e.id === 'no-steps').reason).toMatch(/steps/);
  });

  it('a workspace outside the caller’s roots is refused by workflow_list, and a missing one is named', async () => {
    const outside = await call(bob, 'workflow_list', { workspacePath: workspace });
    expect(outside.isError).toBe(true);
    expect(code(outside)).toBe('path_not_allowed');
    expect(text(outside)).toContain('workspacePath');
    const missing = await call(alice, 'workflow_list', { workspacePath: path.join(workspace, 'nowhere') });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/workspacePath/);
  });

  it('workflow_start runs the workspace workflow to completion, pinned; a shadowing one is started with its warning', async () => {
    const started = await ok(alice, 'workflow_start', { workflowId: 'team-flow', workspacePath: workspace, context: { goal: 'the release' } });
    expect(started.step).toMatchObject({ id: 'plan' });
    expect(started.guidance.prompt).toContain('Write the plan for the release.');
    expect(started.warnings).toBeUndefined();
    // Editing the file afterwards does not change the running session (it is pinned) but is noticed.
    fs.writeFileSync(path.join(workspace, '.workgraph', 'workflows', 'team', 'flow.json'), JSON.stringify({ ...teamFlow, version: '1.1.0' }));
    const planned = await ok(alice, 'workflow_continue', { continueToken: started.continueToken, output: { notesMarkdown: 'planned' } });
    expect(planned.step).toMatchObject({ id: 'ship' });
    const blocked = await ok(alice, 'workflow_continue', { continueToken: planned.continueToken, output: { notesMarkdown: 'not yet' } });
    expect(blocked.status).toBe('blocked');
    const done = await ok(alice, 'workflow_continue', { continueToken: planned.continueToken, output: { notesMarkdown: 'SHIPPED' } });
    expect(done.status).toBe('complete');
    const timeline = await ok(alice, 'workflow_session', { sessionId: started.sessionId });
    expect(timeline.workflow).toMatchObject({ id: 'team-flow', version: '1.0.0', newerVersionAvailable: true });

    const shadowing = await ok(alice, 'workflow_start', { workflowId: 'fix-failing-test', workspacePath: workspace });
    expect(shadowing.step).toMatchObject({ id: 'only', title: 'Fix it' });
    expect(shadowing.warnings).toEqual([
      `workspace workflow 'fix-failing-test' (${path.join(workspace, '.workrail', 'workflows', 'fix.json')}) shadows the bundled workflow of the same id: this workspace gets its own file`,
    ]);
    const badFile = await call(alice, 'workflow_start', { workflowId: 'broken', workspacePath: workspace });
    expect(badFile.isError).toBe(true);
    expect(text(badFile)).toContain(path.join(workspace, '.workgraph', 'workflows', 'broken.json'));
  });

  it('the stateless tools take workspacePath too; without it (and no MCP root) the workspace is not read', async () => {
    const next = await ok(alice, 'workflow_next', { workflowId: 'team-flow', completedSteps: ['plan'], workspacePath: workspace });
    expect(next.step).toMatchObject({ id: 'ship' });
    const validated = await ok(alice, 'workflow_validate', { workflowId: 'team-flow', stepId: 'ship', output: 'not yet', workspacePath: workspace });
    expect(validated.valid).toBe(false);
    const got = await ok(alice, 'workflow_get', { id: 'fix-failing-test', mode: 'metadata', workspacePath: workspace });
    expect(got).toMatchObject({ name: 'Team fix', warnings: [expect.stringContaining('shadows the bundled workflow')] });
    const none = await call(alice, 'workflow_next', { workflowId: 'team-flow', completedSteps: [] });
    expect(code(none)).toBe('not_found');
  });

  it("another identity's session never reads a workspace outside its roots", async () => {
    const refused = await call(bob, 'workflow_start', { workflowId: 'team-flow', workspacePath: workspace });
    expect(refused.isError).toBe(true);
    expect(code(refused)).toBe('path_not_allowed');
    const bundled = await ok(bob, 'workflow_start', { workflowId: 'fix-failing-test', workspacePath: bobRoot });
    expect(bundled.step).toMatchObject({ id: 'reproduce' });
  });
});
