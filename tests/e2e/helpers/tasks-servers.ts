/**
 * The fixtures of the tasks module's end-to-end tests, built servers reached through the SDK client with every answer
 * checked against the tool's output schema. useTasksServers (tasks-integrity.test.ts, tasks-validation-runs.test.ts):
 * each test gets a fresh folder (its project root and data dir inside), servers started on it, and everything it
 * started stopped after it — the servers, and the pids it lists in `leftovers`. useTasksServer (tasks.test.ts,
 * tasks-commands.test.ts): one server and one project root for the whole file.
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

type CallOptions = Parameters<Conn['client']['callTool']>[2];

/** Calls a tool and checks its structuredContent against the tool's outputSchema. */
async function checkedCall(schemas: OutputSchemaChecker, c: Conn, name: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult> {
  const r = (await c.client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
  schemas.check(name, r);
  return r;
}

/** The structured answer of a call that must have succeeded. */
function succeeded(name: string, r: CallToolResult): Structured {
  if (r.isError) throw new Error(`${name} failed: ${text(r)}`);
  return r.structuredContent as Structured;
}

/** The node `id` of the project's graph, as get_project_graph answers it. */
function nodeIn(graph: Structured, id: string): Structured {
  return (graph.nodes as Structured[]).find((n) => n.id === id)!;
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
  state.call = (c, name, args) => checkedCall(schemas, c, name, args, { timeout: 120_000 });
  state.ok = async (c, name, args) => succeeded(name, await state.call(c, name, args));
  state.refused = async (c, name, args) => {
    const r = await state.call(c, name, args);
    if (!r.isError) throw new Error(`${name} succeeded: ${JSON.stringify(r.structuredContent)}`);
    return { code: String(r._meta?.['workgraph/errorCode']), message: text(r) };
  };
  state.nodeOf = async (c, project, id) => nodeIn(await state.ok(c, 'get_project_graph', { project }), id);
  state.projectDir = (id, data = state.dataDir) => path.join(data, 'projects', id);
  return state;
}

export interface TasksServer {
  /** The file's folder (data dir inside), its project root (created), and a folder outside the allowed root. */
  readonly tmp: ReturnType<typeof tempDir>;
  readonly outside: ReturnType<typeof tempDir>;
  readonly projectRoot: string;
  readonly conn: Conn;
  readonly schemas: OutputSchemaChecker;
  call(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<CallToolResult>;
  ok(name: string, args: Record<string, unknown>): Promise<Structured>;
  node(project: string, id: string): Promise<Structured>;
}

/** Registers beforeAll/afterAll around one server allowed to reach the file's folder; the fields fill in beforeAll. */
export function useTasksServer(prefix: string): TasksServer {
  const state = {} as { -readonly [K in keyof TasksServer]: TasksServer[K] };
  beforeAll(async () => {
    state.tmp = tempDir(`${prefix}-`);
    state.outside = tempDir(`${prefix}-outside-`);
    state.projectRoot = path.join(state.tmp.dir, 'project');
    fs.mkdirSync(state.projectRoot);
    state.conn = await connectClient({ dataDir: path.join(state.tmp.dir, 'data'), args: ['--allow-root', state.tmp.dir] });
    state.schemas = await OutputSchemaChecker.fromClient(state.conn.client);
  });
  afterAll(async () => {
    await state.conn?.close();
    state.tmp.cleanup();
    state.outside.cleanup();
  });
  state.call = (name, args, options) => checkedCall(state.schemas, state.conn, name, args, options);
  state.ok = async (name, args) => succeeded(name, await state.call(name, args));
  state.node = async (project, id) => nodeIn(await state.ok('get_project_graph', { project }), id);
  return state;
}
