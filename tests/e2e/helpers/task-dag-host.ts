/**
 * The fixture of the task DAG view's end-to-end tests (mcp-apps-task-dag*.test.ts): a five-task project served by two
 * real built servers on one data dir — one with --allow-actions, one read-only — each read by the SDK's v2 client as
 * a host that declares the extension, the view's HTML of each, and headless Chromium to frame it in.
 */
import type { Client } from '@modelcontextprotocol/client';
import { tempDir } from './server-process';
import { connectHost, hostView, readsThrough, readViewHtml } from './apps-host';
import { launchBrowser, type Browser } from '../../helpers/browser';

type Json = Record<string, any>;

export const TASKS = [
  { id: 'setup', title: 'Set up the repository', depends_on: [], validation_command: 'true' },
  { id: 'parser', title: 'Build the parser', depends_on: ['setup'], validation_command: 'echo parse error at line 3 >&2; exit 3', max_attempts: 3 },
  { id: 'docs', title: 'Write the docs', depends_on: ['setup'] },
  { id: 'cli', title: 'Command line', depends_on: ['parser'] },
  { id: 'release', title: 'Release 1.0', depends_on: ['parser', 'docs', 'cli'] },
];
export const EDGES = TASKS.reduce((n, t) => n + t.depends_on.length, 0);
export const ELK_WORKER_URI = 'ui://workgraph/assets/elk-worker.js.gz';

export async function call(client: Client, name: string, args: Json): Promise<Json> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r as Json;
}

export interface TaskDagHost {
  data: { dir: string; cleanup: () => void };
  root: { dir: string; cleanup: () => void };
  actions: { client: Client; close: () => Promise<void> };
  readOnly: { client: Client; close: () => Promise<void> };
  browser: Browser;
  html: string;
  readOnlyHtml: string;
  /** Frames the view in a host that passes its tool calls and (unless `resources` is false) its resource reads on. */
  open(o: { html?: string; result: Json; input?: Json; width?: number; height?: number; client?: Client; resources?: boolean }): ReturnType<typeof hostView>;
}

/**
 * Starts the servers and the browser before the file's tests (setup done, docs claimed by `writer`) and stops them
 * after; the fields are filled once beforeAll has run.
 */
export function useTaskDagHost(prefix: string): TaskDagHost {
  const h = {} as TaskDagHost;
  h.open = (o) =>
    hostView(h.browser, {
      html: o.html ?? h.html,
      result: o.result,
      input: o.input,
      width: o.width ?? 1200,
      height: o.height ?? 640,
      callTool: async (name, a) => (await (o.client ?? h.actions.client).callTool({ name, arguments: a })) as Json,
      ...(o.resources === false ? {} : { readResource: readsThrough(o.client ?? h.actions.client) }),
    });
  beforeAll(async () => {
    h.data = tempDir(`${prefix}-`);
    h.root = tempDir(`${prefix}-root-`);
    const args = ['--allow-root', h.root.dir];
    h.actions = await connectHost({ dataDir: h.data.dir, args: [...args, '--allow-actions'] });
    h.readOnly = await connectHost({ dataDir: h.data.dir, args });
    await call(h.actions.client, 'init_project_graph', { projectName: 'Parser', projectRoot: h.root.dir, nodes: TASKS });
    await call(h.actions.client, 'start_task', { project: 'Parser', nodeId: 'setup' });
    await call(h.actions.client, 'validate_task_loop', { project: 'Parser', nodeId: 'setup' });
    await call(h.actions.client, 'start_task', { project: 'Parser', nodeId: 'docs', agent: 'writer' });
    h.html = await readViewHtml(h.actions.client, 'task-dag');
    h.readOnlyHtml = await readViewHtml(h.readOnly.client, 'task-dag');
    h.browser = await launchBrowser();
  });
  afterAll(async () => {
    await h.browser?.close();
    await h.actions?.close();
    await h.readOnly?.close();
    h.data?.cleanup();
    h.root?.cleanup();
  });
  return h;
}
