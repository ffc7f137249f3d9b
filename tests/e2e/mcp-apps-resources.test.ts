/**
 * MCP Apps on the wire (docs/mcp-apps.md), the built server driven by the SDK's v2 client in both protocol eras: a
 * host that declares the `io.modelcontextprotocol/ui` extension sees each view-bearing tool's `_meta.ui.resourceUri`
 * and can list and read the `ui://workgraph/…` resources; a client without it sees exactly the tools and resources it
 * saw before (no `_meta`, no `ui://`, a read refused); `--no-ui` turns the views off for everyone.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { RawServer, tempDir } from './helpers/server-process';
import { MODERN_ENVELOPE } from './helpers/modern-client';
import { connectHost } from './helpers/apps-host';

jest.setTimeout(120_000);

const VIEWED: Record<string, string> = {
  get_project_graph: 'ui://workgraph/task-dag',
  get_task_details: 'ui://workgraph/task-dag',
  validate_task_loop: 'ui://workgraph/task-dag',
  workflow_start: 'ui://workgraph/session',
  workflow_continue: 'ui://workgraph/session',
  workflow_session: 'ui://workgraph/session',
  search_nodes: 'ui://workgraph/knowledge-search',
  graph_inspect: 'ui://workgraph/graph-run',
};

let data: { dir: string; cleanup: () => void };
beforeAll(() => {
  data = tempDir('wg-apps-res-');
});
afterAll(() => data.cleanup());

async function withClient<T>(o: { apps: boolean; modern: boolean; args?: string[] }, fn: (c: Client) => Promise<T>): Promise<T> {
  const conn = await connectHost({ dataDir: data.dir, apps: o.apps, modern: o.modern, args: o.args });
  try {
    return await fn(conn.client);
  } finally {
    await conn.close();
  }
}

const views = (tools: Array<{ name: string; _meta?: Record<string, any> }>) =>
  Object.fromEntries(tools.filter((t) => t._meta?.ui?.resourceUri).map((t) => [t.name, (t._meta as Record<string, any>).ui.resourceUri]));

describe.each([
  ['legacy', false],
  ['modern', true],
])('%s era', (_era, modern) => {
  test('a host that declares the extension sees each tool\'s view and reads it', async () => {
    await withClient({ apps: true, modern }, async (c) => {
      const { tools } = await c.listTools();
      expect(views(tools)).toEqual(VIEWED);
      // The views' own app-only tool (how they stay live), kept from the model by the host; the one other `_meta`.
      expect(tools.filter((t) => t._meta && !(t._meta as Record<string, any>).ui?.resourceUri).map((t) => [t.name, t._meta])).toEqual([['resource_changes', { ui: { visibility: ['app'] } }]]);
      const parser = tools.find((t) => t.name === 'get_project_graph')!;
      // Both keys: hosts before `_meta.ui` read the flat one.
      expect(parser._meta).toEqual({ ui: { resourceUri: 'ui://workgraph/task-dag' }, 'ui/resourceUri': 'ui://workgraph/task-dag' });
      const { resources } = await c.listResources();
      const ui = resources.filter((r) => r.uri.startsWith('ui://'));
      expect(ui.map((r) => [r.uri, r.mimeType])).toEqual([['ui://workgraph/task-dag', 'text/html;profile=mcp-app'], ['ui://workgraph/session', 'text/html;profile=mcp-app'], ['ui://workgraph/graph-run', 'text/html;profile=mcp-app'], ['ui://workgraph/knowledge-search', 'text/html;profile=mcp-app']]);
      const read = await c.readResource({ uri: 'ui://workgraph/task-dag' });
      expect(read.contents[0]).toMatchObject({ uri: 'ui://workgraph/task-dag', mimeType: 'text/html;profile=mcp-app' });
      expect((read.contents[0] as { text: string }).text).toMatch(/^<!doctype html>/);
      await expect(c.readResource({ uri: 'ui://workgraph/nothing' })).rejects.toThrow(/unknown view "ui:\/\/workgraph\/nothing"; this server serves ui:\/\/workgraph\/task-dag, ui:\/\/workgraph\/session, ui:\/\/workgraph\/graph-run, ui:\/\/workgraph\/knowledge-search/);
    });
  });

  test('a client without the extension sees no view, lists no ui:// resource and cannot read one', async () => {
    await withClient({ apps: false, modern }, async (c) => {
      const { tools } = await c.listTools();
      expect(tools.filter((t) => t._meta)).toEqual([]);
      const { resources } = await c.listResources();
      expect(resources.filter((r) => r.uri.startsWith('ui://'))).toEqual([]);
      await expect(c.readResource({ uri: 'ui://workgraph/task-dag' })).rejects.toThrow(/unknown resource/);
    });
  });

  test('--no-ui: not even a host that declares the extension sees a view', async () => {
    await withClient({ apps: true, modern, args: ['--no-ui'] }, async (c) => {
      const { tools } = await c.listTools();
      expect(tools.filter((t) => t._meta)).toEqual([]);
      expect((await c.listResources()).resources.filter((r) => r.uri.startsWith('ui://'))).toEqual([]);
    });
  });
});

test.each([
  ['legacy', false],
  ['modern', true],
])('%s era, the graph module alone (--modules graph): graph_inspect announces its view and the view is served', async (_era, modern) => {
  await withClient({ apps: true, modern, args: ['--modules', 'graph'] }, async (c) => {
    const { tools } = await c.listTools();
    expect(views(tools)).toEqual({ graph_inspect: 'ui://workgraph/graph-run' });
    // A graph run is a resource the graph run view watches (workgraph://graph/runs/<id>): resource_changes is served.
    expect(tools.map((t) => t.name)).toContain('resource_changes');
    const { resources } = await c.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['ui://workgraph/graph-run']);
    expect((await c.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['workgraph://graph/runs/{runId}']);
    const read = await c.readResource({ uri: 'ui://workgraph/graph-run' });
    expect((read.contents[0] as { text: string }).text).toMatch(/^<!doctype html>/);
  });
});

/** A modern `tools/list` on the wire, as a client with these capabilities sends it (cache fields are not in the SDK's result). */
async function rawToolsList(raw: RawServer, id: number, capabilities: Record<string, unknown>): Promise<Record<string, any>> {
  raw.send({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: { ...MODERN_ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': capabilities } } });
  return (await raw.response(id)).result as Record<string, any>;
}

test('modern era, cache hints: with views on, tools/list is private for every client (it differs by capability); with --no-ui it is public again', async () => {
  const apps = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };
  const on = new RawServer({ dataDir: data.dir });
  try {
    const shown = await rawToolsList(on, 1, apps);
    const plain = await rawToolsList(on, 2, {});
    // The two answers differ (a shared cache must not hand one to the other): both say so by being private.
    expect(shown.tools.some((t: { _meta?: unknown }) => t._meta)).toBe(true);
    expect(plain.tools.some((t: { _meta?: unknown }) => t._meta)).toBe(false);
    expect(shown).toMatchObject({ resultType: 'complete', cacheScope: 'private', ttlMs: 300_000 });
    expect(plain).toMatchObject({ resultType: 'complete', cacheScope: 'private', ttlMs: 300_000 });
    // What does not vary stays public.
    on.send({ jsonrpc: '2.0', id: 3, method: 'prompts/list', params: { _meta: MODERN_ENVELOPE } });
    expect((await on.response(3)).result).toMatchObject({ cacheScope: 'public' });
  } finally {
    on.kill();
  }
  const off = new RawServer({ dataDir: data.dir, args: ['--no-ui'] });
  try {
    const shown = await rawToolsList(off, 1, apps);
    expect(shown.tools.some((t: { _meta?: unknown }) => t._meta)).toBe(false);
    expect(shown).toMatchObject({ resultType: 'complete', cacheScope: 'public', ttlMs: 300_000 });
  } finally {
    off.kill();
  }
});

test('WORKGRAPH_UI=0 turns the views off like --no-ui; serve --help names --no-ui', async () => {
  const { CLI } = await import('./helpers/server-process');
  const help = execFileSync(process.execPath, [CLI, 'serve', '--help'], { encoding: 'utf8' });
  expect(help).toContain('--no-ui');
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const { serverEnv } = await import('./helpers/server-process');
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve'], env: serverEnv({ dataDir: data.dir, env: { WORKGRAPH_UI: '0' } }), stderr: 'pipe' });
  const c = new Client({ name: 'apps-off', version: '1' }, { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } });
  await c.connect(transport);
  try {
    expect((await c.listTools()).tools.filter((t) => t._meta)).toEqual([]);
  } finally {
    await c.close();
  }
});

test('the extension\'s facts held in src/server/mcp-apps.ts are the extension SDK\'s own constants', async () => {
  // The package is ESM only: read by a child Node process.
  const out = execFileSync(
    process.execPath,
    ['--input-type=module', '-e', "import * as s from '@modelcontextprotocol/ext-apps/server'; console.log(JSON.stringify([s.EXTENSION_ID, s.RESOURCE_MIME_TYPE, s.RESOURCE_URI_META_KEY]))"],
    { encoding: 'utf8', cwd: path.resolve(__dirname, '../..') },
  );
  const ours = await import('../../src/server/mcp-apps');
  expect(JSON.parse(out)).toEqual([ours.UI_EXTENSION_ID, ours.UI_MIME_TYPE, ours.UI_RESOURCE_URI_LEGACY_KEY]);
});
