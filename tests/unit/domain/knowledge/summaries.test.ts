import { extractiveSummary, remainingSegment, summarizesAny, summaryPrompt } from '../../../../src/modules/knowledge/domain/summaries';
import type { StoredKnowledgeNode } from '../../../../src/modules/knowledge/domain/knowledge-node';

const node = (id: string, thought: string, extra: Partial<StoredKnowledgeNode> = {}): StoredKnowledgeNode => ({
  id,
  project: 'p',
  projectContext: '/p',
  thought,
  role: 'actor',
  tags: [],
  artifacts: [],
  parents: [],
  createdAt: '2025-01-01T00:00:00.000Z',
  ...extra,
});

describe('summaries', () => {
  it('extractive summary is deterministic and keeps the first sentence of each node, in order', () => {
    const nodes = [
      node('a', 'Parse the config first. Then the rest.'),
      node('b', 'Use a streaming reader!\nIt keeps memory flat.'),
      node('c', 'Parse the config first. Duplicate.'),
    ];
    const one = extractiveSummary(nodes);
    expect(one).toBe(extractiveSummary(nodes.map((x) => ({ ...x }))));
    expect(one).toBe('Summary of 3 node(s):\n- Parse the config first.\n- Use a streaming reader!');
  });

  it('caps long sentences and the whole text', () => {
    const long = 'x'.repeat(1000);
    const text = extractiveSummary(Array.from({ length: 50 }, (_, i) => node(`n${i}`, `${i}${long}`)));
    expect(text.length).toBeLessThanOrEqual(4000);
    expect(text.split('\n')[1]!.length).toBeLessThanOrEqual(2 + 240);
    expect(text.endsWith('…')).toBe(true);
  });

  it('finds summaries naming a deleted node and their remaining segment', () => {
    const s = node('s', 'summary', { role: 'summary', summarizedSegment: ['a', 'b', 'c'] });
    expect(summarizesAny(s, new Set(['b']))).toBe(true);
    expect(summarizesAny(s, new Set(['z']))).toBe(false);
    expect(summarizesAny({ ...s, role: 'actor' }, new Set(['b']))).toBe(false);
    expect(remainingSegment(s, new Set(['b']))).toEqual(['a', 'c']);
  });

  it('puts the previous summary and every remaining node into the sampling prompt', () => {
    const { prompt, systemPrompt } = summaryPrompt('old text', [node('a', 'alpha'), node('b', 'beta')]);
    expect(systemPrompt).toMatch(/summar/i);
    expect(prompt).toContain('old text');
    expect(prompt).toContain('[a]\nalpha');
    expect(prompt).toContain('[b]\nbeta');
  });
});
