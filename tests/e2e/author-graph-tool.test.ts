import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectClient, tempDir } from './helpers/server-process';

const ROOT = path.resolve(__dirname, '../..');
const FS_SERVER = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

type Answer = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The bundled author-graph-tool workflow walked as a durable session by the SDK's client, doing at each step what
 * the step asks with the authoring tools against the real filesystem MCP server: discover, draft, test the
 * expressions, run the draft inline, save it, and call the saved tool by its name.
 */
describe('author-graph-tool: from "I need a tool that…" to a saved, served graph tool (built server, SDK client)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let conn: Awaited<ReturnType<typeof connectClient>>;
  let docs: string;
  let graphFile: string;
  const call = async (name: string, args: Record<string, unknown>): Promise<{ ok: boolean; value: Answer; text: string }> => {
    const r = (await conn.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as { isError?: boolean; structuredContent?: Answer; content: Array<{ text?: string }> };
    return { ok: !r.isError, value: r.structuredContent ?? {}, text: r.content[0]?.text ?? '' };
  };

  beforeAll(async () => {
    tmp = tempDir('wg-author-walk-');
    docs = path.join(tmp.dir, 'docs');
    fs.mkdirSync(path.join(docs, 'sub'), { recursive: true });
    for (const f of ['a.md', 'b.md', 'notes.txt']) fs.writeFileSync(path.join(docs, f), f);
    fs.mkdirSync(path.join(tmp.dir, 'empty'));
    const graphs = path.join(tmp.dir, 'graphs');
    fs.mkdirSync(graphs);
    graphFile = path.join(graphs, 'tools.yaml');
    fs.writeFileSync(
      graphFile,
      [
        '# Tools the agent builds.',
        'server: { name: "docs-tools", version: "1.0.0" }',
        'mcpServers:',
        '  # The filesystem server, allowed the temp folder only.',
        `  files: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(FS_SERVER)}, ${JSON.stringify(tmp.dir)}] }`,
        'tools: []',
        '',
      ].join('\n'),
    );
    conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--graphs', graphs, '--allow-root', tmp.dir, '--graph-authoring'] });
  }, 60_000);
  afterAll(async () => {
    await conn.close();
    tmp.cleanup();
  });

  it('walks every step with the authoring tools and ends with the tool served', async () => {
    const listed = await call('workflow_list', {});
    expect(listed.value.workflows).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'author-graph-tool', source: 'bundled', format: 'current' })]));
    const started = await call('workflow_start', { workflowId: 'author-graph-tool', workspacePath: tmp.dir, context: { need: 'counts the Markdown files in a folder' } });
    expect(started.ok).toBe(true);
    expect(started.value.step.id).toBe('understand-need');
    expect(started.value.guidance.prompt).toContain('counts the Markdown files in a folder');
    let token = started.value.continueToken as string;
    const advance = async (expectedStep: string, notesMarkdown: string) => {
      const r = await call('workflow_continue', { continueToken: token, output: { notesMarkdown } });
      expect(r.ok).toBe(true);
      expect({ status: r.value.status, blockers: r.value.blockers }).toMatchObject({ status: expectedStep === 'complete' ? 'complete' : 'advanced' });
      if (expectedStep !== 'complete') {
        expect(r.value.step.id).toBe(expectedStep);
        token = r.value.continueToken;
      }
      return r.value;
    };

    // understand-need: nothing served does it; the file and its revision.
    expect((await call('graph_tool_list', {})).value.tools).toEqual([]);
    const server = (await call('graph_server', { file: 'tools.yaml' })).value.graphs[0];
    const step2 = await advance('discover-servers', `count_md {folder} → {count}. graph_tool_list serves nothing close. File ${server.file}, revision ${server.revision}.`);
    expect(step2.guidance.prompt).toContain('graph_mcp_server_list');

    // discover-servers: the filesystem server and list_directory's schema.
    const servers = (await call('graph_mcp_server_list', { file: 'tools.yaml' })).value.servers;
    expect(servers).toEqual([expect.objectContaining({ name: 'files', reachable: true })]);
    const listDir = (await call('graph_mcp_tool_get', { server: 'files', tool: 'list_directory' })).value;
    expect(listDir.inputSchema.required).toEqual(['path']);
    await advance('draft-tool', 'files.list_directory {path} answers {content: "[FILE] a.md\\n[DIR] sub"}.');

    // draft-tool: the definition, checked by the step as a tool definition.
    const count = '{"count": $count($split($.list.content, "\\n")[$substring($, 0, 7) = "[FILE] " and $substring($, $length($) - 3) = ".md"])}';
    const draft = {
      name: 'count_md',
      description: 'Counts the Markdown files directly inside a folder',
      inputSchema: { type: 'object', properties: { folder: { type: 'string' } }, required: ['folder'] },
      outputSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
      nodes: [
        { id: 'entry', type: 'entry', next: 'list' },
        { id: 'list', type: 'mcp', server: 'files', tool: 'list_directory', args: { path: { expr: '$.entry.folder' } }, next: 'count' },
        { id: 'count', type: 'transform', transform: { expr: count }, next: 'exit' },
        { id: 'exit', type: 'exit' },
      ],
    };
    // The step's validationCriteria read it as a tool definition (workflow_validate; a current-format session
    // checks contracts, not validationCriteria).
    const notJson = await call('workflow_validate', { workflowId: 'author-graph-tool', stepId: 'draft-tool', output: 'here is my draft' });
    expect(notJson.value.valid).toBe(false);
    const fenced = `\`\`\`json\n${JSON.stringify(draft)}\n\`\`\``;
    expect((await call('workflow_validate', { workflowId: 'author-graph-tool', stepId: 'draft-tool', output: fenced })).value).toMatchObject({ valid: true, issues: [] });
    await advance('test-expressions', fenced);

    // test-expressions: the transform over a context shaped like list_directory's answer.
    const tested = await call('graph_test_jsonata', { expression: count, context: { list: { content: '[FILE] a.md\n[FILE] b.txt\n[DIR] c.md' } } });
    expect(tested.value).toEqual({ ok: true, result: { count: 1 } });
    const typo = await call('graph_test_jsonata', { expression: count.replace('$length($)', '$length($') });
    expect(typo.value).toMatchObject({ ok: false, error: { kind: 'syntax' } });
    await advance('run-inline', `count over {list: {content: "[FILE] a.md\\n[FILE] b.txt"}} answered {"count": 1}.`);

    // run-inline: in the file's graph, nothing written.
    const run = await call('graph_tool_run', { tool: draft, file: 'tools.yaml', arguments: { folder: docs } });
    expect(run.value).toMatchObject({ status: 'completed', result: { count: 2 } });
    const edge = await call('graph_tool_run', { tool: draft, file: 'tools.yaml', arguments: { folder: path.join(tmp.dir, 'empty') } });
    expect(edge.value).toMatchObject({ status: 'completed', result: { count: 0 } });
    expect(fs.readFileSync(graphFile, 'utf8')).toContain('tools: []');
    await advance('save-tool', `{folder: docs}: completed, {count: 2}; {folder: empty}: completed, {count: 0}.`);

    // save-tool: added with the revision read, served at once, and its answer matches the inline run.
    const saved = await call('graph_tool_add', { file: 'tools.yaml', revision: server.revision, tool: draft });
    expect(saved.ok).toBe(true);
    expect(saved.value.tools).toEqual(['count_md']);
    const answer = await call('count_md', { folder: docs });
    expect(answer.value).toEqual(run.value.result);
    expect(fs.readFileSync(graphFile, 'utf8')).toMatch(/^# Tools the agent builds\.\n[\s\S]*# The filesystem server, allowed the temp folder only\.\n[\s\S]*tools:\n {2}- name: count_md\n/);
    await advance('complete', `Saved to ${saved.value.file} (revision ${saved.value.revision}); count_md answered {count: ${answer.value.count}}.`);
  }, 120_000);
});
