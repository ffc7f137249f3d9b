/**
 * The fixture of the tasks module's integrity tests (tasks-integrity.test.ts, tasks-validation-runs.test.ts): each
 * test gets a fresh folder (its project root and data dir inside), built servers started on it through the SDK client
 * with every answer checked against the tool's output schema, and everything it started stopped after it — the
 * servers, and the pids it lists in `leftovers`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir, type ServerEnvOptions } from './server-process';
import { OutputSchemaChecker } from './output-schemas';

export type Conn = Awaited<ReturnType<typeof connectClient>>;
export type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function text(r: CallToolResult): string {
  return (r.content as Array<{ type: string; text: string }>)[0].text;
}

export interface TasksServers {
  /** This test's folder, its project root (created) and its data dir (not created). */
  readonly tmp: ReturnType<typeof tempDir>;
  readonly projectRoot: string;
  readonly dataDir: string;
  /** Servers open now (closed after each test). */
  readonly open: Conn[];
  /** Pids to SIGKILL after the test (a command a killed server left running). */
  readonly leftovers: number[];
  /** A server on this test's data dir (or `opts.dataDir`) allowed to reach its folder. */
  server(opts?: Partial<ServerEnvOptions>): Promise<Conn>;
  call(c: Conn, name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** The structured answer of a call that must succeed. */
  ok(c: Conn, name: string, args: Record<string, unknown>): Promise<Structured>;
  /** The error code and text of a call that must fail. */
  refused(c: Conn, name: string, args: Record<string, unknown>): Promise<{ code: string; message: string }>;
  nodeOf(c: Conn, project: string, id: string): Promise<Structured>;
  projectDir(id: string, data?: string): string;
}

/** Registers the hooks (once for the schemas, then around each test) and returns the fixture they fill. */
export function useTasksServers(prefix: string): TasksServers {
  let schemas: OutputSchemaChecker;
  const state = { open: [] as Conn[], leftovers: [] as number[] } as { -readonly [K in keyof TasksServers]: TasksServers[K] };
  beforeAll(async () => {
    const scratch = tempDir();
    const c = await connectClient({ dataDir: scratch.dir });
    schemas = await OutputSchemaChecker.fromClient(c.client);
    await c.close();
    scratch.cleanup();
  });
  beforeEach(() => {
    state.tmp = tempDir(prefix);
    state.projectRoot = path.join(state.tmp.dir, 'project');
    state.dataDir = path.join(state.tmp.dir, 'data');
    fs.mkdirSync(state.projectRoot);
  });
  afterEach(async () => {
    for (const c of state.open.splice(0)) await c.close().catch(() => undefined);
    for (const pid of state.leftovers.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
    state.tmp.cleanup();
  });
  state.server = async (opts = {}) => {
    const c = await connectClient({ dataDir: state.dataDir, args: ['--allow-root', state.tmp.dir, ...(opts.args ?? [])], ...opts, ...(opts.dataDir ? {} : { dataDir: state.dataDir }) });
    state.open.push(c);
    return c;
  };
  state.call = async (c, name, args) => {
    const r = (await c.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
    schemas.check(name, r);
    return r;
  };
  state.ok = async (c, name, args) => {
    const r = await state.call(c, name, args);
    if (r.isError) throw new Error(`${name} failed: ${text(r)}`);
    return r.structuredContent as Structured;
  };
  state.refused = async (c, name, args) => {
    const r = await state.call(c, name, args);
    if (!r.isError) throw new Error(`${name} succeeded: ${JSON.stringify(r.structuredContent)}`);
    return { code: String(r._meta?.['workgraph/errorCode']), message: text(r) };
  };
  state.nodeOf = async (c, project, id) => ((await state.ok(c, 'get_project_graph', { project })).nodes as Structured[]).find((n) => n.id === id)!;
  state.projectDir = (id, data = state.dataDir) => path.join(data, 'projects', id);
  return state;
}
