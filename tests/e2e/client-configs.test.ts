import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { assertBuilt, tempDir } from './helpers/server-process';

const ROOT = path.resolve(__dirname, '../..');
const CLIENTS = path.join(ROOT, 'docs/clients');
const PLACEHOLDER = '/ABSOLUTE/PATH/TO/workgraph';

interface ServerEntry {
  type?: string;
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

/** Starts what a config entry names (the placeholder path filled in) and asks for tools/list through the SDK client. */
async function toolsOf(entry: ServerEntry, dataDir: string): Promise<string[]> {
  assertBuilt();
  const fill = (s: string) => s.split(PLACEHOLDER).join(ROOT);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKGRAPH_')) env[k] = v;
  const transport = new StdioClientTransport({
    // `node` as the configs say, found on PATH like a client would.
    command: entry.command,
    args: (entry.args ?? []).map(fill),
    env: { ...env, ...(entry.env ?? {}), WORKGRAPH_DATA_DIR: dataDir, WORKGRAPH_LOG_LEVEL: 'warn' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'client-config-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    return (await client.listTools()).tools.map((t) => t.name);
  } finally {
    await client.close();
  }
}

/** docs/clients: every client config parses, and the command it names starts the server and answers tools/list. */
describe('client configuration files (docs/clients)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => {
    tmp = tempDir('wg-clients-');
  });
  afterAll(() => tmp.cleanup());

  const files = fs.readdirSync(CLIENTS).filter((f) => f.endsWith('.json'));

  it('covers Claude Code, Claude Desktop, Cursor and VS Code', () => {
    expect(files.sort()).toEqual(['claude-code.mcp.json', 'claude-desktop.json', 'cursor.json', 'vscode.json']);
  });

  it.each(files)('%s parses, and its command serves tools/list', async (file) => {
    const config = JSON.parse(fs.readFileSync(path.join(CLIENTS, file), 'utf8')) as { mcpServers?: Record<string, ServerEntry>; servers?: Record<string, ServerEntry> };
    // VS Code keys its servers under `servers`; the others under `mcpServers`.
    const servers = file === 'vscode.json' ? config.servers : config.mcpServers;
    const entry = servers?.workgraph;
    expect(entry).toBeDefined();
    if (entry!.type !== undefined) expect(entry!.type).toBe('stdio');
    expect(entry!.args?.join(' ')).toContain(`${PLACEHOLDER}/dist/cli/main.js serve`);
    const tools = await toolsOf(entry!, path.join(tmp.dir, 'data'));
    expect(tools).toEqual(expect.arrayContaining(['workflow_next', 'validate_task_loop', 'add_nodes', 'graph_inspect']));
  }, 60_000);

  it('the `claude mcp add` line of docs/clients/README.md starts a server that answers tools/list', async () => {
    const readme = fs.readFileSync(path.join(CLIENTS, 'README.md'), 'utf8');
    const line = readme.split('\n').find((l) => l.startsWith('claude mcp add workgraph -- '));
    expect(line).toBeDefined();
    const [command, ...args] = line!.slice('claude mcp add workgraph -- '.length).trim().split(/\s+/);
    expect(await toolsOf({ command: command!, args }, path.join(tmp.dir, 'data'))).toContain('workflow_list');
  }, 60_000);
});

describe('the package', () => {
  it('is publishable: npm pack holds the bin, the built server, the schemas, workflows and examples; prepack builds', () => {
    const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string>; private?: boolean };
    expect(pkg.private).toBeUndefined();
    expect(pkg.bin.workgraph).toBe('dist/cli/main.js');
    expect(pkg.scripts.prepack).toMatch(/build/);
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(0);
    const files = (JSON.parse(r.stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['dist/cli/main.js', 'spec/graph.schema.json', 'workflows/review-change.json', 'examples/graphs/sum_to_n.yaml', 'package.json', 'README.md']));
    expect(files.some((f) => f.startsWith('src/') || f.startsWith('tests/'))).toBe(false);
    expect(fs.readFileSync(path.join(ROOT, 'dist/cli/main.js'), 'utf8').startsWith('#!/usr/bin/env node')).toBe(true);
  }, 60_000);

  it("leaves npm ci and git nothing to warn about: npm pack's tarball is ignored, every install script has an allowScripts decision", () => {
    const { spawnSync } = require('node:child_process') as typeof import('node:child_process');
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; allowScripts?: Record<string, boolean> };
    const tarball = `${pkg.name}-${pkg.version}.tgz`;
    expect(spawnSync('git', ['check-ignore', '-q', tarball], { cwd: ROOT }).status).toBe(0);
    // npm (11) warns at every `npm ci` about an installed package whose install script allowScripts neither allows
    // nor denies (packages for another platform are not installed here).
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean; os?: string[]; cpu?: string[] }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript && (!p.os || p.os.includes(process.platform)) && (!p.cpu || p.cpu.includes(process.arch)))
      .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    expect(withScripts.filter((name) => typeof pkg.allowScripts?.[name] !== 'boolean')).toEqual([]);
  });
});
