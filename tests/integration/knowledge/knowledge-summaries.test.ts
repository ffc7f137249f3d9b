import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ctxWithSampler, EchoSampler, makeKnowledgeEnv, type KnowledgeEnv } from './support/knowledge-env';
import { validStoredNode } from './support/knowledge-node-schema';

/**
 * Summaries on real files when a node they summarize is deleted: reported without being recalculated unless asked;
 * recalculated by the extractive summary without a sampler, through the client's sampler when offered, extractively
 * again when sampling fails; a summary that changed meanwhile left alone. (The rest of the graph's use cases:
 * knowledge-flow.test.ts.)
 */

const CTX = '/home/me/work/Demo App/';
const P = 'demo-app';

describe('knowledge graph on real files: summaries', () => {
  let env: KnowledgeEnv;
  beforeEach(async () => {
    env = await makeKnowledgeEnv();
  });
  afterEach(() => env.cleanup());

  async function seedSummary() {
    await env.add.execute({
      projectContext: CTX,
      nodes: [
        { id: 'a', thought: 'Alpha finding. Details follow.', role: 'actor' },
        { id: 'b', thought: 'Beta finding is wrong.', role: 'actor' },
        { id: 'c', thought: 'Gamma finding!', role: 'actor' },
        { id: 's', thought: 'old summary of a, b, c', role: 'summary', summarizedSegment: ['a', 'b', 'c'] },
        { id: 's2', thought: 'summary of b only', role: 'summary', summarizedSegment: ['b'] },
      ],
    });
  }

  it('reports affected summaries without recalculating when not asked', async () => {
    await seedSummary();
    const out = await env.del.execute({ projectContext: CTX, nodeIds: ['b'] });
    expect(out.summaries.map((s) => [s.summaryId, s.status])).toEqual([
      ['s', 'not_recalculated'],
      ['s2', 'not_recalculated'],
    ]);
    expect((await env.get.execute({ projectContext: CTX, id: 's' })).node.thought).toBe('old summary of a, b, c');
  });

  it('recalculates with the deterministic extractive summary when no sampler is offered', async () => {
    await seedSummary();
    const out = await env.del.execute({ projectContext: CTX, nodeIds: ['b'], recalculateSummaries: true });
    expect(out.summaries[0]).toMatchObject({ summaryId: 's', status: 'recalculated', method: 'extractive', remainingNodeIds: ['a', 'c'] });
    expect(out.summaries[1]).toMatchObject({ summaryId: 's2', status: 'empty', method: null, remainingNodeIds: [] });
    expect(out.warnings).toContain('Summary s2 has no remaining nodes; it was kept unchanged');
    const s = (await env.get.execute({ projectContext: CTX, id: 's' })).node;
    expect(s.thought).toBe('Alpha finding. Gamma finding!');
    expect(s.summarizedSegment).toEqual(['a', 'c']);
    expect(s.summaryHistory).toEqual([
      { thought: 'old summary of a, b, c', summarizedSegment: ['a', 'b', 'c'], deletedNodeIds: ['b'], replacedAt: expect.any(String) },
    ]);
    expect(validStoredNode(JSON.parse((await env.readLines(P)).find((l) => l.includes('"id":"s"'))!))).toBe(true);
    // Restoring b brings the hand-written text and the whole segment back.
    const restored = await env.restore.execute({ projectContext: CTX, nodeIds: ['b'] });
    expect(restored.restoredSummaryIds).toEqual(['s']);
    const back = (await env.get.execute({ projectContext: CTX, id: 's' })).node;
    expect(back).toMatchObject({ thought: 'old summary of a, b, c', summarizedSegment: ['a', 'b', 'c'] });
    expect(back.summaryHistory).toBeUndefined();
    const s2 = (await env.get.execute({ projectContext: CTX, id: 's2' })).node;
    expect(s2).toMatchObject({ thought: 'summary of b only', summarizedSegment: ['b'] });
    expect(env.logger.entries.filter((e) => e.msg === 'knowledge summary recalculation')).toHaveLength(2);
  });

  it('recalculates through the client sampler when offered', async () => {
    await seedSummary();
    const sampler = new EchoSampler((prompt) => `LLM summary (${(prompt.match(/^\[/gm) ?? []).length} nodes)`);
    const out = await env.del.execute({ projectContext: CTX, nodeIds: ['b'], recalculateSummaries: true }, ctxWithSampler(sampler));
    expect(out.summaries[0]).toMatchObject({ summaryId: 's', status: 'recalculated', method: 'sampling' });
    expect(sampler.requests).toHaveLength(1);
    expect(sampler.requests[0]!.prompt).toContain('Alpha finding. Details follow.');
    expect(sampler.requests[0]!.prompt).not.toContain('Beta finding');
    expect((await env.get.execute({ projectContext: CTX, id: 's' })).node.thought).toBe('LLM summary (2 nodes)');
  });

  it('falls back to extractive when sampling fails', async () => {
    await seedSummary();
    const failing = { complete: async () => Promise.reject(new Error('client refused')) };
    const out = await env.del.execute({ projectContext: CTX, nodeIds: ['b'], recalculateSummaries: true }, ctxWithSampler(failing));
    expect(out.summaries[0]).toMatchObject({ status: 'recalculated', method: 'extractive' });
    expect(out.summaries[0]!.message).toMatch(/sampling failed: client refused/);
  });

  it('leaves a summary that changed meanwhile alone (compare-and-swap)', async () => {
    await seedSummary();
    const file = path.join(env.projectDir(P), 'knowledge_graph.ndjson');
    // The sampler edits the summary behind our back while "thinking" (as another process could).
    const sampler = new EchoSampler(() => 'late answer');
    const original = sampler.complete.bind(sampler);
    sampler.complete = async (req) => {
      const text = await fs.readFile(file, 'utf8');
      await fs.writeFile(file, text.replace('old summary of a, b, c', 'edited elsewhere'));
      return original(req);
    };
    const out = await env.del.execute({ projectContext: CTX, nodeIds: ['b'], recalculateSummaries: true }, ctxWithSampler(sampler));
    expect(out.summaries[0]).toMatchObject({ summaryId: 's', status: 'conflict' });
    expect((await env.get.execute({ projectContext: CTX, id: 's' })).node.thought).toBe('edited elsewhere');
  });
});
