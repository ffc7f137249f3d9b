/**
 * MCP Apps views stay live (docs/mcp-apps.md "Live views"): a change made by ANOTHER client — a second server process
 * on the same data dir, as a second agent or the CLI would be — appears in a framed view without focus, Refresh or a
 * new tool result. The real built server is the host's (the SDK's v2 client declaring the extension), the view is
 * framed in headless Chromium by the extension SDK's AppBridge (tests/e2e/helpers/apps-host); the view polls the
 * app-only resource_changes tool through the host and re-reads only when what it shows changed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { tempDir } from './helpers/server-process';
import { connectHost, hostView, readViewHtml, until, type HostedView } from './helpers/apps-host';
import { launchBrowser, type Browser } from '../helpers/browser';

jest.setTimeout(Number(process.env.APPS_TEST_TIMEOUT ?? 180_000));

type Json = Record<string, any>;
type Conn = { client: Client; close: () => Promise<void> };
let data: { dir: string; cleanup: () => void };
let root: { dir: string; cleanup: () => void };
let wf: { dir: string; cleanup: () => void };
let browser: Browser;
const opened: Conn[] = [];

const WORKFLOW = {
  id: 'two-steps',
  name: 'Two steps',
  description: 'Plan, then build.',
  version: '1.0.0',
  steps: [
    { id: 'plan', title: 'Plan the change', prompt: 'Plan it.' },
    { id: 'build', title: 'Build the change', prompt: 'Build it.' },
  ],
};

async function call(client: Client, name: string, args: Json): Promise<Json> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r as Json;
}

async function connect(o: { apps: boolean; modern?: boolean }): Promise<Conn> {
  const c = await connectHost({ dataDir: data.dir, apps: o.apps, modern: o.modern, args: ['--allow-root', root.dir, '--workflows', wf.dir] });
  opened.push(c);
  return c;
}

beforeAll(async () => {
  data = tempDir('wg-apps-live-');
  root = tempDir('wg-apps-live-root-');
  wf = tempDir('wg-apps-live-wf-');
  fs.writeFileSync(path.join(wf.dir, 'two-steps.json'), JSON.stringify(WORKFLOW));
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  for (const c of opened) await c.close();
  data?.cleanup();
  root?.cleanup();
  wf?.cleanup();
});

const open = async (host: Client, view: string, result: Json, input: Json = {}): Promise<HostedView> =>
  hostView(browser, { html: await readViewHtml(host, view), result, input, width: 1200, height: 640, callTool: async (name, a) => (await host.callTool({ name, arguments: a })) as Json });

test('tools/list: a host that shows views gets the app-only resource_changes tool (visibility app); a plain client neither lists nor can call it', async () => {
  const host = await connect({ apps: true });
  const plain = await connect({ apps: false });
  const tool = (await host.client.listTools()).tools.find((t) => t.name === 'resource_changes');
  expect(tool?._meta).toEqual({ ui: { visibility: ['app'] } });
  expect((await plain.client.listTools()).tools.map((t) => t.name)).not.toContain('resource_changes');
  await expect(plain.client.callTool({ name: 'resource_changes', arguments: { resources: ['workgraph://projects/x/tasks'] } })).rejects.toThrow(/unknown tool|resource_changes/i);
  const bad = await host.client.callTool({ name: 'resource_changes', arguments: { resources: ['ui://workgraph/task-dag'] } });
  expect(bad.isError).toBe(true);
  expect(JSON.stringify(bad.content)).toContain('resources/0: \\"ui://workgraph/task-dag\\" is not a resource this server serves');
});

test('legacy era: another client resets a task and claims one; the DAG view shows both without focus or refresh, re-reading only after the change', async () => {
  const host = await connect({ apps: true });
  const other = await connect({ apps: false });
  await call(host.client, 'init_project_graph', {
    projectName: 'Live',
    projectRoot: root.dir,
    nodes: [
      { id: 'setup', title: 'Set up', depends_on: [], validation_command: 'true' },
      { id: 'docs', title: 'Write the docs', depends_on: ['setup'] },
    ],
  });
  await call(host.client, 'start_task', { project: 'Live', nodeId: 'setup' });
  await call(host.client, 'validate_task_loop', { project: 'Live', nodeId: 'setup' });
  const result = await call(host.client, 'get_project_graph', { project: 'Live' });
  const v = await open(host.client, 'task-dag', result, { project: 'Live' });
  try {
    await v.view.locator('.react-flow__node[data-id="setup"]').waitFor();
    expect(await v.view.locator('.react-flow__node[data-id="setup"]').textContent()).toContain('COMPLETED');
    // Polling, and nothing changed: the polls ask for the project's task graph only, and nothing is re-read.
    await until(() => v.polls(), (p) => expect(p.length).toBeGreaterThanOrEqual(3), 30_000);
    expect((await v.polls())[0].arguments).toEqual({ resources: ['workgraph://projects/live/tasks'] });
    expect(await v.calls()).toEqual([]);
    // What an unchanged poll costs on the wire (text and structured content): a few hundred bytes, not the graph.
    const poll = await host.client.callTool({ name: 'resource_changes', arguments: { resources: ['workgraph://projects/live/tasks'] } });
    expect(JSON.stringify(poll).length).toBeLessThan(600);
    expect(JSON.stringify(result).length).toBeGreaterThan(2 * JSON.stringify(poll).length);

    // Another process (a second agent's server) resets the task.
    await call(other.client, 'reset_task_node', { project: 'Live', nodeId: 'setup', reason: 'redo it' });
    await until(() => v.view.locator('.react-flow__node[data-id="setup"]').textContent(), (t) => expect(t).not.toContain('COMPLETED'), 30_000);
    expect((await v.calls()).map((c) => c.name)).toContain('get_project_graph');
    const reads = (await v.calls()).length;

    // And claims the task again: heard as well.
    await call(other.client, 'start_task', { project: 'Live', nodeId: 'setup', agent: 'second-agent' });
    await until(() => v.view.locator('.react-flow__node[data-id="setup"]').textContent(), (t) => expect(t).toMatch(/IN.PROGRESS/), 30_000);
    expect((await v.calls()).length).toBeGreaterThan(reads);
  } finally {
    await v.close();
  }
});

test('modern era: a session advanced by a second client moves on in the session view without focus or refresh', async () => {
  const host = await connect({ apps: true, modern: true });
  const other = await connect({ apps: false });
  const start = await call(host.client, 'workflow_start', { workflowId: 'two-steps', goal: 'Live session', workspacePath: data.dir });
  const v = await open(host.client, 'session', start);
  try {
    await until(() => v.view.locator('[data-testid="current-title"]').textContent(), (t) => expect(t).toContain('Plan the change'));
    await until(() => v.view.locator('[data-step="plan"]').getAttribute('data-state'), (s) => expect(s).toBe('current'));
    await until(() => v.polls(), (p) => expect(p.length).toBeGreaterThanOrEqual(2), 30_000);
    expect((await v.polls())[0].arguments).toEqual({ resources: [`workgraph://sessions/${start.structuredContent.sessionId}`] });

    // The second client continues the session (as a second agent resuming it would).
    const next = await call(other.client, 'workflow_continue', { continueToken: start.structuredContent.continueToken, output: { notesMarkdown: 'Planned it **elsewhere**.' } });
    expect(next.structuredContent.step.id).toBe('build');
    await until(() => v.view.locator('[data-step="plan"]').getAttribute('data-state'), (s) => expect(s).toBe('done'), 30_000);
    expect(await v.view.locator('[data-step="build"]').getAttribute('data-state')).toBe('current');
    expect(await v.view.locator('[data-step="plan"] .note').textContent()).toContain('Planned it elsewhere');
    // The answer it was handed named the plan step: no longer shown as current.
    expect(await v.view.locator('[data-testid="current-title"]').count()).toBe(0);
    expect(await v.view.locator('[data-testid="moved-on"]').textContent()).toContain('build');
  } finally {
    await v.close();
  }
});

test('legacy era: a node another client adds to a hit\'s project appears in the knowledge search view (the search run again)', async () => {
  const host = await connect({ apps: true });
  const other = await connect({ apps: false });
  const projectContext = '/work/live-notes';
  await call(host.client, 'add_nodes', { projectContext, nodes: [{ thought: 'The lexer splits the config into tokens', role: 'actor', tags: ['lexer'] }] });
  const input = { projectContext, query: 'lexer' };
  const first = await call(host.client, 'search_nodes', input);
  expect(first.structuredContent.hits).toHaveLength(1);
  const project = first.structuredContent.hits[0].project as string;
  const v = await open(host.client, 'knowledge-search', first, input);
  try {
    await until(() => v.view.locator('[data-testid="hits"] li').count(), (n) => expect(n).toBe(1));
    await until(() => v.polls(), (p) => expect(p.length).toBeGreaterThanOrEqual(2), 30_000);
    expect((await v.polls())[0].arguments).toEqual({ resources: [`workgraph://knowledge/${project}`] });
    expect(await v.calls()).toEqual([]);

    await call(other.client, 'add_nodes', { projectContext, nodes: [{ thought: 'A second lexer pass folds the comments', role: 'critic', tags: ['lexer'] }] });
    await until(() => v.view.locator('[data-testid="hits"] li').count(), (n) => expect(n).toBe(2), 30_000);
    expect(await v.view.locator('[data-testid="hits"]').textContent()).toContain('folds the comments');
    // Re-read as the same search (its first page), nothing else.
    const reads = await v.calls();
    expect(reads.length).toBeGreaterThanOrEqual(1);
    for (const r of reads) expect(r).toEqual({ name: 'search_nodes', arguments: input });
  } finally {
    await v.close();
  }
});
