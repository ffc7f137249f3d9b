/**
 * The fixture of the graph authoring e2e tests (graph-authoring-write.test.ts, graph-authoring-older-format.test.ts):
 * a graphs folder with a hand-written nested-format file (tools.yaml, calling the fixture MCP server), a copy of
 * sum_to_n (older format), an empty file, a file outside the allowed roots and one --graphs does not name, served by
 * one built server with --graph-authoring, its tools/list_changed notifications counted.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './server-process';

const ROOT = path.resolve(__dirname, '../../..');
const TEST_SERVER = path.join(ROOT, 'tests/fixtures/mcp-servers/test-server.js');
const SUM_TO_N = path.join(ROOT, 'examples/graphs/sum_to_n.yaml');

export type Result = { isError?: boolean; structuredContent?: Record<string, any>; content: Array<{ text: string }> };

/** A nested-format graph file with comments, one tool calling the fixture server's echo with a $-string argument. */
export const TOOLS_YAML = `# Hand-written graph: its comments must survive the authoring tools.
version: "1.0"
server:
  name: "authoring"   # the server block
  version: "1.0.0"
mcpServers:
  fixture: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(TEST_SERVER)}] }
tools:
  # The first tool, written by hand.
  - name: "shout"
    description: "Echoes the message"
    inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] }
    outputSchema: { type: "object" }
    nodes:
      - { id: "entry", type: "entry", next: "call" }
      - { id: "call", type: "mcp", server: "fixture", tool: "echo", args: { message: "$.entry.message" }, next: "exit" }
      - { id: "exit", type: "exit" }
# Trailing comment.
`;

/** A tool that echoes its message through the fixture server and answers {said, length}. */
export function echoTool(name: string, description = 'Echoes and measures the message') {
  return {
    name,
    description,
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
    outputSchema: { type: 'object', properties: { said: { type: 'string' }, length: { type: 'number' } } },
    nodes: [
      { id: 'entry', type: 'entry', next: 'call' },
      { id: 'call', type: 'mcp', server: 'fixture', tool: 'echo', args: { message: { expr: '$.entry.message' } }, next: 'measure' },
      { id: 'measure', type: 'transform', transform: { expr: '{"said": $.call.message, "length": $length($.call.message)}' }, next: 'exit' },
      { id: 'exit', type: 'exit' },
    ],
  };
}

export interface AuthoringServer {
  readonly tmp: ReturnType<typeof tempDir>;
  /** The served graphs folder and its tools.yaml. */
  readonly graphs: string;
  readonly file: string;
  readonly conn: Awaited<ReturnType<typeof connectClient>>;
  /** tools/list_changed notifications received so far. */
  readonly listChanged: number;
  call(name: string, args: Record<string, unknown>): Promise<Result>;
  /** tools.yaml's revision as graph_server answers it. */
  revisionOf(): Promise<string>;
}

/** Registers beforeAll/afterAll around the folder and its server; the fields fill in beforeAll. */
export function useAuthoringServer(prefix: string): AuthoringServer {
  const state = { listChanged: 0 } as { -readonly [K in keyof AuthoringServer]: AuthoringServer[K] };
  state.call = async (name, args) => (await state.conn.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as Result;
  state.revisionOf = async () => (await state.call('graph_server', { file: 'tools.yaml' })).structuredContent!.graphs[0].revision as string;
  beforeAll(async () => {
    const tmp = (state.tmp = tempDir(`${prefix}-`));
    const graphs = (state.graphs = path.join(tmp.dir, 'graphs'));
    fs.mkdirSync(graphs);
    state.file = path.join(graphs, 'tools.yaml');
    fs.writeFileSync(state.file, TOOLS_YAML);
    fs.copyFileSync(SUM_TO_N, path.join(graphs, 'sum_to_n.yaml'));
    fs.writeFileSync(path.join(graphs, 'empty.yaml'), '# nothing yet\nserver: { name: "empty", version: "1" }\ntools: []\n');
    fs.mkdirSync(path.join(tmp.dir, 'outside'));
    fs.writeFileSync(path.join(tmp.dir, 'outside', 'far.yaml'), 'server: { name: "far", version: "1" }\ntools: []\n');
    fs.writeFileSync(path.join(tmp.dir, 'not-served.yaml'), 'server: { name: "ns", version: "1" }\ntools: []\n');
    state.conn = await connectClient({
      dataDir: path.join(tmp.dir, 'data'),
      args: ['--graphs', graphs, '--graphs', path.join(tmp.dir, 'outside', 'far.yaml'), '--allow-root', graphs, '--graph-authoring'],
    });
    state.conn.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      state.listChanged++;
    });
  }, 60_000);
  afterAll(async () => {
    await state.conn?.close();
    state.tmp?.cleanup();
  });
  return state;
}
