import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import jsonata from 'jsonata';
import { parse } from 'yaml';
import type { McpServerConfig } from '../../../src/modules/graph/domain/types';
import type { McpServerRef } from '../../../src/modules/graph/application/ports/mcp-client-pool';
import { SdkMcpClientPool } from '../../../src/modules/graph/infrastructure/mcp';

/** The official filesystem MCP server, as installed (devDependency). */
const REPO_ROOT = path.resolve(__dirname, '../../..');
const PACKAGE_JSON = require.resolve('@modelcontextprotocol/server-filesystem/package.json');
const FILESYSTEM_BIN = path.join(
  path.dirname(PACKAGE_JSON),
  (require(PACKAGE_JSON) as { bin: Record<string, string> }).bin['mcp-server-filesystem'],
);

describe('SdkMcpClientPool with the official filesystem MCP server', () => {
  let pool: SdkMcpClientPool;
  let dir: string;

  beforeEach(async () => {
    pool = new SdkMcpClientPool({ requestTimeoutMs: 20_000 });
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'wg-mcp-fs-')));
  });

  afterEach(async () => {
    await pool.closeAll();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('lists a temp folder through the pool', async () => {
    await fs.writeFile(path.join(dir, 'one.txt'), '1');
    await fs.writeFile(path.join(dir, 'two.txt'), '2');
    await fs.mkdir(path.join(dir, 'folder'));
    const server: McpServerRef = { name: 'filesystem', config: { command: process.execPath, args: [FILESYSTEM_BIN, dir] } };

    const result = await pool.callTool(server, 'list_directory', { path: dir });
    expect(result.isError).toBeFalsy();
    const listing = (result.structuredContent as { content: string }).content;
    expect(listing.split('\n').sort()).toEqual(['[DIR] folder', '[FILE] one.txt', '[FILE] two.txt']);
  });

  it('returns the server refusing a path outside its allowed directory as an isError result', async () => {
    const server: McpServerRef = { name: 'filesystem', config: { command: process.execPath, args: [FILESYSTEM_BIN, dir] } };
    const result = await pool.callTool(server, 'list_directory', { path: path.dirname(dir) });
    expect(result.isError).toBe(true);
    expect(result.content?.[0]?.text).toMatch(/Access denied/);
  });

  it("runs examples/graphs/count_files.yaml's server config and counting expression against the real server", async () => {
    const graph = parse(await fs.readFile(path.join(REPO_ROOT, 'examples/graphs/count_files.yaml'), 'utf8')) as {
      mcpServers: Record<string, McpServerConfig>;
      tools: Array<{ name: string; nodes: Array<{ id: string; args?: { path: string }; transform?: { expr: string } }> }>;
    };
    const nodes = graph.tools.find((t) => t.name === 'count_files')!.nodes;
    const listNode = nodes.find((n) => n.id === 'list_directory_node')!;
    const countNode = nodes.find((n) => n.id === 'count_files_node')!;
    // The example's paths are relative to workgraph's working directory: the root of the checkout.
    const declared = graph.mcpServers.filesystem;
    if (!('command' in declared)) throw new Error('count_files.yaml: the filesystem server should be a stdio server');
    const server: McpServerRef = { name: 'filesystem', config: { ...declared, cwd: REPO_ROOT } };

    const count = async (directory: string): Promise<unknown> => {
      const context: Record<string, unknown> = { entry_count_files: { directory } };
      const args = { path: await jsonata(listNode.args!.path).evaluate(context) };
      const result = await pool.callTool(server, 'list_directory', args);
      expect(result.isError).toBeFalsy();
      context.list_directory_node = result.structuredContent;
      return jsonata(countNode.transform!.expr).evaluate(context);
    };

    // tests/fixtures/count-files holds a.txt, b.md, c.json and the folder sub/ (whose file is not counted).
    expect(await count('tests/fixtures/count-files')).toEqual({ count: 3 });
    expect(await count('tests/fixtures/count-files/sub')).toEqual({ count: 1 });
  });
});
