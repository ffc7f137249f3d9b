import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HttpServerProcess } from './helpers/http-server';
import { CLI, assertBuilt, tempDir } from './helpers/server-process';

/**
 * A real third-party client: the MCP Inspector CLI (`@modelcontextprotocol/inspector` 0.15.0, a devDependency; the
 * last line that runs on Node 20), in its `--cli` mode, against the built server over stdio: exactly what
 * `npx mcp-inspector --cli node dist/cli/main.js serve --method ...` runs. Offline: only the installed package is used.
 *
 * The inspector passes its own environment to the server it spawns, so WORKGRAPH_DATA_DIR reaches it.
 */

const REPO = path.resolve(__dirname, '../..');
/** The file `npx mcp-inspector` runs (the package's `bin`), started with node directly to save npx's own start-up. */
const INSPECTOR_PKG = path.join(REPO, 'node_modules/@modelcontextprotocol/inspector');
const INSPECTOR_BIN = path.join(
  INSPECTOR_PKG,
  (JSON.parse(fs.readFileSync(path.join(INSPECTOR_PKG, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['mcp-inspector'],
);
const SUM_TO_N = path.join(REPO, 'examples/graphs/sum_to_n.yaml');

interface InspectorRun {
  code: number;
  stdout: string;
  stderr: string;
}

describe('MCP Inspector CLI (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let projectRoot: string;
  beforeAll(() => {
    assertBuilt();
    tmp = tempDir('wg-inspector-');
    projectRoot = path.join(tmp.dir, 'root');
    fs.mkdirSync(projectRoot);
  });
  afterAll(() => tmp.cleanup());

  /** `mcp-inspector --cli node dist/cli/main.js serve <serveArgs> <inspectorArgs>`. */
  function inspector(serveArgs: string[], inspectorArgs: string[]): Promise<InspectorRun> {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('WORKGRAPH_')) env[k] = v;
    env.WORKGRAPH_DATA_DIR = path.join(tmp.dir, 'data');
    env.WORKGRAPH_LOG_LEVEL = 'warn';
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [INSPECTOR_BIN, '--cli', process.execPath, CLI, 'serve', ...serveArgs, ...inspectorArgs],
        { cwd: REPO, env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  async function callTool(serveArgs: string[], tool: string, args: string[]): Promise<Record<string, unknown>> {
    const run = await inspector(serveArgs, ['--method', 'tools/call', '--tool-name', tool, ...args.flatMap((a) => ['--tool-arg', a])]);
    if (run.code !== 0) throw new Error(`inspector exited ${run.code}: ${run.stderr.slice(0, 2000)}`);
    const result = JSON.parse(run.stdout) as Record<string, unknown>;
    expect(result.isError).toBeFalsy();
    expect(JSON.parse((result.content as Array<{ text: string }>)[0].text)).toEqual(result.structuredContent);
    return result.structuredContent as Record<string, unknown>;
  }

  it('tools/list: every built-in module and a graph tool, each with input and output schemas', async () => {
    const run = await inspector(['--graphs', SUM_TO_N], ['--method', 'tools/list']);
    expect(run.code).toBe(0);
    const { tools } = JSON.parse(run.stdout) as { tools: Array<{ name: string; inputSchema: { type: string }; outputSchema?: { type: string } }> };
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['workflow_list', 'workflow_next', 'init_project_graph', 'get_ready_tasks', 'add_nodes', 'list_nodes', 'graph_inspect', 'sum_to_n']));
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.outputSchema?.type).toBe('object');
    }
  }, 90_000);

  it('tools/call workflow_list and workflow_next (workflow module)', async () => {
    const list = await callTool([], 'workflow_list', []);
    expect((list.workflows as Array<{ id: string }>).map((w) => w.id)).toContain('fix-failing-test');
    // The inspector parses a --tool-arg value as JSON when it can: completedSteps=[] is an empty array.
    const next = await callTool([], 'workflow_next', ['workflowId=fix-failing-test', 'completedSteps=[]']);
    expect((next.step as { id: string }).id).toBe('reproduce');
    expect(next.isComplete).toBe(false);
  }, 90_000);

  it('tools/call init_project_graph then get_ready_tasks (tasks module)', async () => {
    const serve = ['--allow-root', projectRoot];
    const nodes = JSON.stringify([
      { id: 'a', title: 'First' },
      { id: 'b', title: 'Second', depends_on: ['a'] },
    ]);
    const graph = await callTool(serve, 'init_project_graph', ['projectName=Inspector Project', `projectRoot=${projectRoot}`, `nodes=${nodes}`]);
    expect(graph.project_id).toBe('inspector-project');
    const ready = await callTool(serve, 'get_ready_tasks', ['project=Inspector Project']);
    expect(ready).toEqual({ ready_count: 1, ready_tasks: [{ id: 'a', title: 'First', status: 'READY', priority: 'medium', unblocks: 1 }], revision: 0 });
  }, 90_000);

  it('tools/call add_nodes then list_nodes (knowledge module)', async () => {
    const added = await callTool([], 'add_nodes', ['projectContext=/work/inspector-app', `nodes=${JSON.stringify([{ thought: 'first line\nsecond', role: 'actor', tags: ['t'] }])}`]);
    expect(added.project).toBe('inspector-app');
    const listed = await callTool([], 'list_nodes', ['projectContext=/work/inspector-app']);
    expect(listed.nodes).toEqual([expect.objectContaining({ id: (added.ids as string[])[0], role: 'actor', tags: ['t'], thought: 'first line' })]);
  }, 90_000);

  it('tools/call sum_to_n (graph module, served from --graphs)', async () => {
    const out = await callTool(['--graphs', SUM_TO_N], 'sum_to_n', ['n=100']);
    expect(out.sum).toBe(5050);
  }, 90_000);

  it('reports a tool error as an isError result the inspector prints', async () => {
    const run = await inspector([], ['--method', 'tools/call', '--tool-name', 'workflow_get', '--tool-arg', 'id=no-such-workflow']);
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { isError: boolean; content: Array<{ text: string }>; _meta: Record<string, string> };
    expect(result.isError).toBe(true);
    expect(result._meta['workgraph/errorCode']).toBe('not_found');
    expect(result.content[0].text).toMatch(/^not_found: /);
  }, 90_000);
});

/** The same inspector CLI against the built server over streamable HTTP (`--transport http`, loopback, no auth). */
describe('MCP Inspector CLI over streamable HTTP (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: HttpServerProcess;
  beforeAll(async () => {
    tmp = tempDir('wg-inspector-http-');
    server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', SUM_TO_N] });
  }, 60_000);
  afterAll(() => {
    server?.kill();
    tmp.cleanup();
  });

  function inspectHttp(inspectorArgs: string[]): Promise<InspectorRun> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [INSPECTOR_BIN, '--cli', server.url, '--transport', 'http', ...inspectorArgs],
        { cwd: REPO, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  it('lists the tools of every module and calls workflow_next and a graph tool', async () => {
    const listed = await inspectHttp(['--method', 'tools/list']);
    expect(listed.code).toBe(0);
    const names = (JSON.parse(listed.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['workflow_list', 'workflow_next', 'init_project_graph', 'add_nodes', 'graph_inspect', 'sum_to_n']));

    const next = await inspectHttp(['--method', 'tools/call', '--tool-name', 'workflow_next', '--tool-arg', 'workflowId=fix-failing-test', '--tool-arg', 'completedSteps=[]']);
    expect(next.code).toBe(0);
    expect((JSON.parse(next.stdout) as { structuredContent: { step: { id: string } } }).structuredContent.step.id).toBe('reproduce');

    const sum = await inspectHttp(['--method', 'tools/call', '--tool-name', 'sum_to_n', '--tool-arg', 'n=100']);
    expect(sum.code).toBe(0);
    expect((JSON.parse(sum.stdout) as { structuredContent: { sum: number } }).structuredContent.sum).toBe(5050);
  }, 120_000);
});
