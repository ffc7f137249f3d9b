/**
 * The fixture of the dashboard API's end-to-end tests (dashboard-api.test.ts, dashboard-api-actions.test.ts): a data
 * dir seeded by the built MCP server (driven by the SDK's real client: helpers/dashboard-seed.ts) and the built
 * `workgraph dashboard` over it, read-only, started once the seeded graph run is recorded; and the calls the tests make
 * to its API.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient, tempDir } from './server-process';
import { startDashboardProcess, type DashboardProcess } from './dashboard-process';
import { seed, SUM_TO_N } from './dashboard-seed';

export async function get(d: DashboardProcess, p: string, token: string | null = d.token): Promise<{ status: number; body: any }> {
  const res = await fetch(`${d.origin}${p}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text };
}

export async function post(d: DashboardProcess, p: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${d.origin}${p}`, { method: 'POST', headers: { Authorization: `Bearer ${d.token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

export async function eventually<T>(fn: () => Promise<T | undefined>, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface SeededDashboard {
  data: { dir: string; cleanup: () => void };
  root: { dir: string; cleanup: () => void };
  mcp: { client: Client; close: () => Promise<void> };
  dash: DashboardProcess;
  seeded: { runId: string; deletedId: string; keptIds: string[] };
}

/** Registers beforeAll/afterAll around the seeded data dir, its MCP server and the dashboard; the fields fill in beforeAll. */
export function useSeededDashboard(): SeededDashboard {
  const state = {} as SeededDashboard;
  beforeAll(async () => {
    state.data = tempDir('wg-dash-data-');
    state.root = tempDir('wg-dash-root-');
    state.mcp = await connectClient({ dataDir: state.data.dir, args: ['--graphs', SUM_TO_N, '--allow-root', state.root.dir] });
    state.seeded = await seed(state.mcp.client, state.root.dir);
    state.dash = await startDashboardProcess({ dataDir: state.data.dir, args: ['--graphs', SUM_TO_N] });
    // The MCP server records its run after the run ended, off the engine's path.
    await eventually(async () => ((await get(state.dash, `/api/runs/${state.seeded.runId}`)).status === 200 ? true : undefined), 'the recorded run');
  });
  afterAll(async () => {
    await state.dash?.stop();
    await state.mcp?.close();
    state.data?.cleanup();
    state.root?.cleanup();
  });
  return state;
}
