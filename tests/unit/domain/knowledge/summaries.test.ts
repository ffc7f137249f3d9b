import { extractiveSummary, recalculatedSummary, remainingSegment, restoredSummary, summarizesAny, summaryPrompt } from '../../../../src/modules/knowledge/domain/summaries';
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
    expect(one).toBe('Parse the config first. Use a streaming reader!');
    expect(one).not.toContain('\n');
    expect(extractiveSummary([node('x', 'no final stop'), node('y', 'Second.')])).toBe('no final stop; Second.');
    expect(extractiveSummary([node('x', 'Only one node here. More.')])).toBe('Only one node here.');
  });

  it('caps long sentences and the whole text', () => {
    const long = 'x'.repeat(1000);
    const text = extractiveSummary(Array.from({ length: 50 }, (_, i) => node(`n${i}`, `${i}${long}`)));
    expect(text.length).toBeLessThanOrEqual(400);
    expect(text).not.toContain('\n');
    expect(text.endsWith('…')).toBe(true);
    expect(extractiveSummary([node('x', long)]).length).toBeLessThanOrEqual(240);
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

  it('keeps the previous version of a recalculated summary and gives it back once its deleted nodes exist again', () => {
    const s0 = node('s', 'hand-written summary', { role: 'summary', summarizedSegment: ['a', 'b', 'c'] });
    const s1 = recalculatedSummary(s0, 'after b', ['a', 'c'], ['b'], '2025-01-01T00:00:00.000Z');
    expect(s1).toMatchObject({ thought: 'after b', summarizedSegment: ['a', 'c'] });
    const s2 = recalculatedSummary(s1, 'after c', ['a'], ['c', 'zzz'], '2025-01-02T00:00:00.000Z');
    expect(s2.summaryHistory!.map((v) => v.deletedNodeIds)).toEqual([['b'], ['c']]);
    // Only b back: the newest version waits for c, nothing changes.
    expect(restoredSummary(s2, (id) => id === 'a' || id === 'b')).toBeUndefined();
    // c back: one step back.
    expect(restoredSummary(s2, (id) => id !== 'b')).toMatchObject({ thought: 'after b', summarizedSegment: ['a', 'c'] });
    // b and c back: the hand-written text, and no history left.
    const back = restoredSummary(s2, () => true)!;
    expect(back).toMatchObject({ thought: 'hand-written summary', summarizedSegment: ['a', 'b', 'c'] });
    expect(back.summaryHistory).toBeUndefined();
  });
});
