import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectClient, tempDir } from './helpers/server-process';

const ROOT = path.resolve(__dirname, '../..');
const TEST_SERVER = path.join(ROOT, 'tests/fixtures/mcp-servers/test-server.js');
const FS_SERVER = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

type Server = { name: string; transport: string; declaredIn: string[]; reachable: boolean; serverInfo?: { name: string }; tools?: Array<{ name: string; inputSchema: Record<string, unknown> }>; error?: string };

/**
 * graph_mcp_server_list and graph_mcp_tool_get of the built server with --graph-authoring, over real upstream MCP
 * servers (the pool's fixture server and @modelcontextprotocol/server-filesystem) and one that cannot start.
 */
describe('graph authoring: discovering the MCP servers graphs can call (built server, SDK client)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let graphFile: string;
  const call = async (name: string, args: Record<string, unknown>) =>
    (await conn.client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ text: string }> };

  beforeAll(async () => {
    tmp = tempDir('wg-authoring-mcp-');
    const graphs = path.join(tmp.dir, 'graphs');
    fs.mkdirSync(graphs);
    fs.mkdirSync(path.join(tmp.dir, 'files'));
    graphFile = path.join(graphs, 'tools.yaml');
    fs.writeFileSync(
      graphFile,
      [
        'server: { name: "authoring", version: "1.0.0" }',
        'mcpServers:',
        `  fixture: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(TEST_SERVER)}] }`,
        `  files: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FS_SERVER)}, ${JSON.stringify(path.join(tmp.dir, 'files'))}] }`,
        '  broken: { command: "/nonexistent/no-such-mcp-server" }',
        'tools: []',
        '',
      ].join('\n'),
    );
    const mcpConfig = path.join(tmp.dir, 'mcp.json');
    fs.writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { shared: { command: process.execPath, args: [TEST_SERVER], env: { FIXTURE_TAG: 'shared' } } } }));
    conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', graphs, '--mcp-config', mcpConfig, '--graph-authoring'] });
  }, 60_000);
  afterAll(async () => {
    await conn.close();
    tmp.cleanup();
  });

  it('lists every server with its tools and input schemas; the one that cannot start is named with its error, the others still listed', async () => {
    const r = await call('graph_mcp_server_list', {});
    expect(r.isError).toBeFalsy();
    const servers = r.structuredContent!.servers as Server[];
    expect(servers.map((s) => s.name)).toEqual(['broken', 'files', 'fixture', 'shared']);
    const [broken, files, fixture, shared] = servers;
    expect(broken).toMatchObject({ name: 'broken', transport: 'stdio', declaredIn: [fs.realpathSync(graphFile)], reachable: false });
    expect(broken.error).toMatch(/MCP server 'broken' could not be started/);
    expect(broken.tools).toBeUndefined();
    expect(fixture).toMatchObject({ reachable: true, serverInfo: { name: 'pool-test-server' } });
    const echo = fixture.tools!.find((t) => t.name === 'echo')!;
    expect(echo.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
    expect(files.reachable).toBe(true);
    expect(files.tools!.map((t) => t.name)).toEqual(expect.arrayContaining(['list_directory', 'read_text_file', 'write_file']));
    expect(files.tools!.find((t) => t.name === 'list_directory')!.inputSchema).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } });
    // --mcp-config's server is named by its source, not by every graph file it is merged into.
    expect(shared).toMatchObject({ declaredIn: ['--mcp-config'], reachable: true });
  }, 60_000);

  it('narrows by server and by file; an unknown server or file is a not_found naming it', async () => {
    const one = await call('graph_mcp_server_list', { server: 'fixture' });
    expect((one.structuredContent!.servers as Server[]).map((s) => s.name)).toEqual(['fixture']);
    const byFile = await call('graph_mcp_server_list', { file: 'tools.yaml' });
    expect((byFile.structuredContent!.servers as Server[]).map((s) => `${s.name}:${s.declaredIn.join(',')}`)).toEqual([
      `broken:${fs.realpathSync(graphFile)}`,
      `files:${fs.realpathSync(graphFile)}`,
      `fixture:${fs.realpathSync(graphFile)}`,
      'shared:--mcp-config',
    ]);
    const unknown = await call('graph_mcp_server_list', { server: 'nope' });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0].text).toMatch(/^not_found: MCP server 'nope' not found \(the graphs can call: broken, files, fixture, shared\)/);
    const noFile = await call('graph_mcp_server_list', { file: 'other.yaml' });
    expect(noFile.content[0].text).toMatch(/other\.yaml/);
  }, 60_000);

  it('graph_mcp_tool_get: one tool with its schemas; unknown tool lists the tools; unreachable server is an error naming it', async () => {
    const got = await call('graph_mcp_tool_get', { server: 'files', tool: 'list_directory' });
    expect(got.isError).toBeFalsy();
    expect(got.structuredContent).toMatchObject({ server: 'files', name: 'list_directory', inputSchema: { type: 'object' }, description: expect.any(String) });
    expect(got.structuredContent!.outputSchema).toMatchObject({ type: 'object' });
    const noTool = await call('graph_mcp_tool_get', { server: 'fixture', tool: 'nope' });
    expect(noTool.isError).toBe(true);
    expect(noTool.content[0].text).toMatch(/MCP server 'fixture' has no tool 'nope' \(it lists: .*echo/);
    const broken = await call('graph_mcp_tool_get', { server: 'broken', tool: 'x' });
    expect(broken.isError).toBe(true);
    expect(broken.content[0].text).toMatch(/^external_tool_error: MCP server 'broken' could not be started/);
  }, 60_000);
});
