import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectClient, tempDir } from './helpers/server-process';
import { connectModernStdio } from './helpers/modern-client';

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The shared examples as an agent meets them, in both protocol eras (SDK v1 client: initialize; SDK v2 client pinned to
 * 2026-07-28): list the workflows, start a durable session of the code-review workflow and step through it to the end
 * (a blocked output, the runCondition step taken, the forEach loop, the JSON-schema summary), read the session back;
 * call the loop graph's sum_to_n. The files are the repository's copies of ../shared/examples (byte-identical):
 * tests/fixtures/workflows/code-review.json (code-review.workflow.json) and examples/graphs/sum_to_n.yaml
 * (loop_example.yaml). Every record of the session keeps its actor with the client's name in both eras.
 */
const WORKFLOW = path.join(__dirname, '../fixtures/workflows/code-review.json');
const GRAPH = path.join(__dirname, '../../examples/graphs/sum_to_n.yaml');

interface Conn {
  call: (name: string, args: Record<string, unknown>) => Promise<{ isError?: boolean; out: Structured; text: string }>;
  close: () => Promise<void>;
}

const ERAS: Array<{ era: string; client: string; connect: (dataDir: string, args: string[]) => Promise<Conn> }> = [
  {
    era: 'legacy (initialize)',
    client: 'workgraph-e2e',
    connect: async (dataDir, args) => {
      const c = await connectClient({ dataDir, args });
      return { call: async (name, a) => shape(await c.client.callTool({ name, arguments: a })), close: c.close };
    },
  },
  {
    era: 'modern (2026-07-28)',
    client: 'workgraph-e2e-modern',
    connect: async (dataDir, args) => {
      const c = await connectModernStdio({ dataDir, args });
      return { call: async (name, a) => shape(await c.client.callTool({ name, arguments: a })), close: c.close };
    },
  },
];

function shape(r: unknown): { isError?: boolean; out: Structured; text: string } {
  const res = r as { isError?: boolean; structuredContent?: Structured; content?: Array<{ text?: string }> };
  return { isError: res.isError, out: res.structuredContent ?? {}, text: res.content?.[0]?.text ?? '' };
}

describe.each(ERAS)('the shared examples through the built server, $era', ({ client, connect }) => {
  let tmp: ReturnType<typeof tempDir>;
  let conn: Conn;
  beforeAll(async () => {
    tmp = tempDir('wg-e2e-examples-');
    const wf = path.join(tmp.dir, 'workflows');
    fs.mkdirSync(wf);
    fs.copyFileSync(WORKFLOW, path.join(wf, 'code-review.workflow.json'));
    conn = await connect(path.join(tmp.dir, 'data'), ['--workflows', wf, '--graphs', GRAPH, '--allow-root', tmp.dir]);
  });
  afterAll(async () => {
    await conn.close();
    tmp.cleanup();
  });

  it('lists, starts and steps the code-review workflow to the end; the session keeps every step, note and actor', async () => {
    const list = await conn.call('workflow_list', {});
    expect(list.out.workflows).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'code-review', source: 'flag' })]));
    expect(list.out.invalid).toEqual([]);

    let r = await conn.call('workflow_start', { workflowId: 'code-review', goal: 'review PR 7', workspacePath: tmp.dir });
    expect(r.isError).toBeFalsy();
    expect(r.out).toMatchObject({ status: 'started', step: { id: 'gather' } });
    const sessionId = r.out.sessionId as string;

    // No file named: blocked, the criterion's own message, the same step; the retry token moves on.
    r = await conn.call('workflow_continue', { continueToken: r.out.continueToken, output: { notesMarkdown: 'nothing yet' } });
    expect(r.out).toMatchObject({ status: 'blocked', step: { id: 'gather' }, attempt: 1 });
    expect(r.out.blockers).toEqual([expect.objectContaining({ code: 'validation_failed', message: expect.stringContaining('Name at least one file with its extension') })]);

    // 500 changed lines: the threat-model step's runCondition (changedLines > 400) holds.
    const files = ['src/a.ts', 'src/b.ts'];
    r = await conn.call('workflow_continue', { continueToken: r.out.retryToken, output: { notesMarkdown: 'Files: src/a.ts, src/b.ts' }, context: { files, changedLines: 500 } });
    expect(r.out).toMatchObject({ status: 'advanced', step: { id: 'threat-model' } });
    r = await conn.call('workflow_continue', { continueToken: r.out.continueToken, output: { notesMarkdown: 'Inputs: none new; permissions and secrets unchanged.' } });
    for (const [i, file] of files.entries()) {
      expect(r.out).toMatchObject({ status: 'advanced', step: { id: 'review', completionId: `review-files[${i}].review`, loop: { iteration: i, item: file } } });
      expect(r.out.guidance.prompt).toContain(`Review ${file}.`);
      r = await conn.call('workflow_continue', { continueToken: r.out.continueToken, output: { notesMarkdown: `Unchecked null at line 12 of ${file}` } });
    }
    expect(r.out).toMatchObject({ status: 'advanced', step: { id: 'summary' } });
    // Not the described JSON object: blocked naming the schema's message.
    const bad = await conn.call('workflow_continue', { continueToken: r.out.continueToken, output: { notesMarkdown: '{"verdict":"maybe"}' } });
    expect(bad.out).toMatchObject({ status: 'blocked', step: { id: 'summary' } });
    expect(JSON.stringify(bad.out.blockers)).toContain('The summary must be the JSON object described');
    r = await conn.call('workflow_continue', { continueToken: bad.out.retryToken, output: { notesMarkdown: '{"verdict":"approve","findings":[]}' } });
    expect(r.out).toMatchObject({ status: 'complete', isComplete: true, step: null, sessionStatus: 'complete' });

    const session = await conn.call('workflow_session', { sessionId });
    expect(session.out.completedSteps).toEqual(['gather', 'threat-model', 'review-files[0].review', 'review-files[1].review', 'summary']);
    expect(session.out.progress).toMatchObject({ done: 4, total: 4, skipped: 0 });
    expect(session.out.context).toEqual({ files, changedLines: 500 });
    const events = session.out.events as Structured[];
    expect(events.filter((e) => e.kind === 'output_blocked')).toHaveLength(2);
    // Who did it, in either era: the identity and the client's clientInfo.name (modern: from each request's envelope).
    expect(events.length).toBeGreaterThan(6);
    for (const e of events) expect(e.actor).toEqual({ name: 'local', client });
  });

  it('runs the loop graph sum_to_n and refuses bad arguments naming the field', async () => {
    expect((await conn.call('sum_to_n', { n: 5 })).out).toEqual({ sum: 15 });
    expect((await conn.call('sum_to_n', { n: 100 })).out).toEqual({ sum: 5050 });
    const missing = await conn.call('sum_to_n', {});
    expect(missing.isError).toBe(true);
    expect(missing.text).toBe('invalid_arguments: n: is required');
    const wrong = await conn.call('sum_to_n', { n: 'x' });
    expect(wrong.text).toBe('invalid_arguments: n: must be number (got string)');
  });

  it('a knowledge node added in this era keeps its client', async () => {
    await conn.call('add_nodes', { projectContext: 'examples', nodes: [{ id: 'k1', thought: 'Reviewed PR 7', role: 'actor' }] });
    const node = await conn.call('get_node', { projectContext: 'examples', id: 'k1' });
    expect(node.out.node.actor).toEqual({ name: 'local', client });
  });
});
