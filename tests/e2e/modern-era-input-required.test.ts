import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { HttpServerProcess, rawRequest } from './helpers/http-server';
import { MODERN_ENVELOPE, connectModernStdio, modernHeaders } from './helpers/modern-client';
import { tempDir } from './helpers/server-process';

/**
 * `input_required` (MCP 2026-07-28) on the built server: where workgraph needs the person's word it ends the call with
 * the question and a signed requestState instead of sending a request to the client, and the client calls again with
 * the answer. Driven by the SDK's v2 client (its multi-round-trip engine answers through the client's elicitation
 * handler and retries) over stdio, and by plain HTTP requests across two instances of one data dir (stateless: the
 * instance that asked is not the one that gets the answer); a tampered, foreign or missing requestState is refused.
 */
type Answer = Record<string, any>;

const ELICITATION = { elicitation: { form: {} } };

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const r = await client.callTool({ name, arguments: args }, { timeout: 60_000 });
  if (r.isError) throw new Error(JSON.stringify(r.content));
  return r.structuredContent as Answer;
}

/** a ← b ← c: deleting a has the dependents b and c. */
async function seed(client: Client, project: string): Promise<void> {
  await call(client, 'add_nodes', {
    projectContext: project,
    nodes: [
      { id: 'a', thought: 'Use a cache in front of the store.', role: 'actor' },
      { id: 'b', thought: 'Retry failed writes.', role: 'actor', parents: ['a'] },
      { id: 'c', thought: 'Back off between retries.', role: 'critic', parents: ['b'] },
      { id: 'd', thought: 'Unrelated.', role: 'actor' },
    ],
  });
}

/** A workflow whose first step needs the person's confirmation. */
const CONFIRMED = {
  id: 'confirmed-plan',
  name: 'Confirmed plan',
  description: 'A plan the person confirms, then the build.',
  version: '1.0.0',
  steps: [
    { id: 'plan', title: 'Plan', prompt: 'Write the plan.', requireConfirmation: true },
    { id: 'build', title: 'Build', prompt: 'Build it.' },
  ],
};

function workflowsDir(dir: string): string {
  const workflows = path.join(dir, 'workflows');
  fs.mkdirSync(workflows, { recursive: true });
  fs.writeFileSync(path.join(workflows, 'confirmed-plan.json'), JSON.stringify(CONFIRMED));
  return workflows;
}

const ids = async (client: Client, project: string) => ((await call(client, 'list_nodes', { projectContext: project })).nodes as Answer[]).map((n) => n.id).sort();

describe('input_required (2026-07-28): confirmations asked of the person', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('wg-input-required-')));
  afterEach(() => tmp.cleanup());

  it('stdio, SDK v2 client: the person confirms and the nodes go with their dependents; declines, and nothing is deleted', async () => {
    const asked: Answer[] = [];
    let answer: Answer = { action: 'accept', content: { confirm: true } };
    const conn = await connectModernStdio({ dataDir: path.join(tmp.dir, 'data'), capabilities: ELICITATION });
    conn.client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return answer as never;
    });
    try {
      await seed(conn.client, 'yes');
      const deleted = await call(conn.client, 'delete_nodes', { projectContext: 'yes', nodeIds: ['a'] });
      expect(asked).toHaveLength(1);
      expect(asked[0].message).toMatch(/Delete a and the 2 node\(s\) that depend on them \(b, c\)/);
      expect(asked[0].requestedSchema).toMatchObject({ type: 'object', properties: { confirm: { type: 'boolean' } } });
      expect(deleted).toMatchObject({ success: true, deletedNodeIds: ['a', 'b', 'c'], dependentNodes: [] });
      expect(deleted.backupPath).toEqual(expect.any(String));
      expect(await ids(conn.client, 'yes')).toEqual(['d']);
      // restore_nodes brings them all back.
      await call(conn.client, 'restore_nodes', { projectContext: 'yes', nodeIds: ['a', 'b', 'c'] });
      expect(await ids(conn.client, 'yes')).toEqual(['a', 'b', 'c', 'd']);

      answer = { action: 'decline' };
      const declined = await call(conn.client, 'delete_nodes', { projectContext: 'yes', nodeIds: ['a'] });
      expect(asked).toHaveLength(2);
      expect(declined).toMatchObject({ success: false, deletedNodeIds: [] });
      expect(declined.message).toMatch(/not confirmed/);
      expect(declined.dependentNodes.map((n: Answer) => n.nodeId).sort()).toEqual(['b', 'c']);
      answer = { action: 'accept', content: { confirm: false } };
      expect((await call(conn.client, 'delete_nodes', { projectContext: 'yes', nodeIds: ['a'] })).success).toBe(false);
      expect(await ids(conn.client, 'yes')).toEqual(['a', 'b', 'c', 'd']);
      // Nothing depends on d: deleted without a question.
      expect((await call(conn.client, 'delete_nodes', { projectContext: 'yes', nodeIds: ['d'] })).success).toBe(true);
      expect(asked).toHaveLength(3);
    } finally {
      await conn.close();
    }
  });

  it('stdio, SDK v2 client: summary recalculation asks for sampled summaries in the same round as the confirmation; without sampling, the extractive one', async () => {
    const sampled: Answer[] = [];
    const conn = await connectModernStdio({ dataDir: path.join(tmp.dir, 'data'), capabilities: { ...ELICITATION, sampling: {} } });
    conn.client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { confirm: true } }) as never);
    conn.client.setRequestHandler('sampling/createMessage', async (request) => {
      sampled.push(request.params);
      return { model: 'e2e-model', role: 'assistant', content: { type: 'text', text: 'A cache and retries, sampled.' } } as never;
    });
    const plain = await connectModernStdio({ dataDir: path.join(tmp.dir, 'data') });
    try {
      await call(conn.client, 'add_nodes', {
        projectContext: 'sum',
        nodes: [
          { id: 'a', thought: 'Add a cache in front of the store. It halves reads.', role: 'actor' },
          { id: 'b', thought: 'Retry failed writes with backoff. Three tries.', role: 'actor' },
          { id: 'c', thought: 'Typo node, to be removed.', role: 'actor' },
          { id: 'c2', thought: 'Depends on the typo.', role: 'actor', parents: ['c'] },
          { id: 'sum', thought: 'Old summary of a, b, c and c2.', role: 'summary', summarizedSegment: ['a', 'b', 'c', 'c2'] },
        ],
      });
      const result = await call(conn.client, 'delete_nodes', { projectContext: 'sum', nodeIds: ['c'], recalculateSummaries: true });
      expect(result).toMatchObject({ success: true, deletedNodeIds: ['c', 'c2'] });
      expect(result.summaries).toEqual([expect.objectContaining({ summaryId: 'sum', status: 'recalculated', method: 'sampling', remainingNodeIds: ['a', 'b'] })]);
      // The client's LLM was asked once, about the nodes that remain once the confirmed delete is done.
      expect(sampled).toHaveLength(1);
      const asked = JSON.stringify(sampled[0].messages);
      expect(asked).toContain('Add a cache in front of the store');
      expect(asked).not.toContain('Typo node');
      expect(asked).not.toContain('Depends on the typo');
      expect((await call(conn.client, 'get_node', { projectContext: 'sum', id: 'sum' })).node.thought).toBe('A cache and retries, sampled.');

      // A client that cannot sample gets the extractive summary, as in the legacy era without sampling.
      await call(plain.client, 'add_nodes', {
        projectContext: 'ext',
        nodes: [
          { id: 'a', thought: 'Add a cache in front of the store. It halves reads.', role: 'actor' },
          { id: 'c', thought: 'Typo node.', role: 'actor' },
          { id: 'sum', thought: 'Old summary.', role: 'summary', summarizedSegment: ['a', 'c'] },
        ],
      });
      const extractive = await call(plain.client, 'delete_nodes', { projectContext: 'ext', nodeIds: ['c'], recalculateSummaries: true });
      expect(extractive.summaries).toEqual([expect.objectContaining({ summaryId: 'sum', status: 'recalculated', method: 'extractive' })]);
      expect(sampled).toHaveLength(1);
    } finally {
      await conn.close();
      await plain.close();
    }
  });

  it('stdio, a client without elicitation: today\'s answers (delete refused listing the dependents; the step advances, its guidance says to ask)', async () => {
    const conn = await connectModernStdio({ dataDir: path.join(tmp.dir, 'data'), args: ['--workflows', workflowsDir(tmp.dir)] });
    try {
      await seed(conn.client, 'no');
      const refused = await call(conn.client, 'delete_nodes', { projectContext: 'no', nodeIds: ['a'] });
      expect(refused).toMatchObject({ success: false, deletedNodeIds: [] });
      expect(refused.message).toMatch(/Call delete_nodes again with the dependent node ids included/);
      const started = await call(conn.client, 'workflow_start', { workflowId: 'confirmed-plan' });
      expect(started.guidance.prompt).toMatch(/Ask for the confirmation this step requires/);
      const next = await call(conn.client, 'workflow_continue', { continueToken: started.continueToken, output: { notesMarkdown: 'the plan' } });
      expect(next).toMatchObject({ status: 'advanced', step: { id: 'build' } });
    } finally {
      await conn.close();
    }
  });

  it('stdio, SDK v2 client: a requireConfirmation step of a session waits for the person: yes advances, no blocks it (the same output replayed, a new one asked about)', async () => {
    const asked: Answer[] = [];
    let answer: Answer = { action: 'accept', content: { confirm: false } };
    const conn = await connectModernStdio({ dataDir: path.join(tmp.dir, 'data'), args: ['--workflows', workflowsDir(tmp.dir)], capabilities: ELICITATION });
    conn.client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return answer as never;
    });
    try {
      const started = await call(conn.client, 'workflow_start', { workflowId: 'confirmed-plan' });
      expect(started.step.id).toBe('plan');
      const refused = await call(conn.client, 'workflow_continue', { continueToken: started.continueToken, output: { notesMarkdown: 'Plan v1: rewrite everything.' } });
      expect(asked).toHaveLength(1);
      expect(asked[0].message).toMatch(/Accept the result of step "Plan".*Plan v1: rewrite everything\./);
      expect(refused).toMatchObject({ status: 'blocked', step: { id: 'plan' } });
      expect(refused.blockers).toEqual([expect.objectContaining({ code: 'not_confirmed', message: expect.stringContaining('did not confirm') })]);
      // The same output again is the same answer (replayed, not asked again).
      const again = await call(conn.client, 'workflow_continue', { continueToken: started.continueToken, output: { notesMarkdown: 'Plan v1: rewrite everything.' } });
      expect(again.status).toBe('blocked');
      expect(asked).toHaveLength(1);
      answer = { action: 'accept', content: { confirm: true } };
      const done = await call(conn.client, 'workflow_continue', { continueToken: refused.retryToken, output: { notesMarkdown: 'Plan v2: one module at a time.' } });
      expect(asked).toHaveLength(2);
      expect(asked[1].message).toContain('Plan v2');
      expect(done).toMatchObject({ status: 'advanced', step: { id: 'build' } });
      // The build step needs no confirmation: no question.
      const end = await call(conn.client, 'workflow_continue', { continueToken: done.continueToken, output: { notesMarkdown: 'built' } });
      expect(end.status).toBe('complete');
      expect(asked).toHaveLength(2);
    } finally {
      await conn.close();
    }
  });

  it('HTTP, two instances of one data dir: asked by one, answered to the other; forged, tampered and foreign states refused', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const a = await HttpServerProcess.start({ dataDir });
    const b = await HttpServerProcess.start({ dataDir });
    let id = 0;
    const envelope = { ...MODERN_ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': ELICITATION };
    const post = async (server: HttpServerProcess, name: string, args: Answer, retry: Answer = {}) => {
      const r = await rawRequest(server.url, {
        method: 'POST',
        headers: modernHeaders('tools/call', name),
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: args, ...retry, _meta: envelope } }),
      });
      return JSON.parse(r.body) as Answer;
    };
    try {
      await post(a, 'add_nodes', {
        projectContext: 'http',
        nodes: [
          { id: 'a', thought: 'A.', role: 'actor' },
          { id: 'b', thought: 'B.', role: 'actor', parents: ['a'] },
        ],
      });
      const args = { projectContext: 'http', nodeIds: ['a'] };
      const asked = (await post(a, 'delete_nodes', args)).result;
      expect(asked.resultType).toBe('input_required');
      const [key] = Object.keys(asked.inputRequests);
      expect(asked.inputRequests[key]).toMatchObject({ method: 'elicitation/create', params: { mode: 'form', message: expect.stringContaining('(b)') } });
      expect(asked.requestState).toEqual(expect.any(String));
      const yes = { [key]: { action: 'accept', content: { confirm: true } } };

      // A forged answer without the server's question: asked again, nothing deleted.
      const forged = (await post(b, 'delete_nodes', args, { inputResponses: yes })).result;
      expect(forged.resultType).toBe('input_required');
      // The state altered (one character of its signed body): refused with a clear error.
      const [v, body, mac] = asked.requestState.split('.');
      const flipped = `${v}.${body.slice(0, -2)}${body.slice(-2, -1) === 'A' ? 'B' : 'A'}${body.slice(-1)}.${mac}`;
      const tampered = await post(b, 'delete_nodes', args, { inputResponses: yes, requestState: flipped });
      expect(tampered.error).toMatchObject({ code: -32602, message: expect.stringMatching(/requestState refused: .*signature does not match/) });
      expect(await post(b, 'delete_nodes', args, { inputResponses: yes, requestState: 'not-a-state' })).toMatchObject({ error: { code: -32602, message: expect.stringContaining('requestState refused') } });
      // The state of this question on another call (other arguments): refused.
      const other = await post(b, 'delete_nodes', { projectContext: 'http', nodeIds: ['a', 'b'] }, { inputResponses: yes, requestState: asked.requestState });
      expect(other.error).toMatchObject({ code: -32602, message: expect.stringContaining('made for another call') });
      expect(((await post(b, 'list_nodes', { projectContext: 'http' })).result.structuredContent.nodes as Answer[]).length).toBe(2);

      // The genuine answer, sent to the instance that did not ask: the nodes and their dependent are deleted.
      const done = (await post(b, 'delete_nodes', args, { inputResponses: yes, requestState: asked.requestState })).result;
      expect(done.resultType).toBe('complete');
      expect(done.structuredContent).toMatchObject({ success: true, deletedNodeIds: ['a', 'b'] });
    } finally {
      a.kill();
      b.kill();
    }
  });
});
