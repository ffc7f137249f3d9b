import { firstLine, isDeletedNodeRecord, isStoredKnowledgeNode, toBrief } from '../../../../src/modules/knowledge/domain/knowledge-node';

const stored = {
  id: 'a',
  project: 'p',
  projectContext: '/p',
  thought: '\n  first line  \nsecond',
  role: 'critic',
  tags: ['t'],
  artifacts: [],
  parents: [],
  createdAt: '2025-01-01T00:00:00.000Z',
};

describe('knowledge node shapes', () => {
  it('recognises stored nodes and rejects malformed values', () => {
    expect(isStoredKnowledgeNode(stored)).toBe(true);
    expect(isStoredKnowledgeNode({ ...stored, role: 'boss' })).toBe(false);
    expect(isStoredKnowledgeNode({ ...stored, id: '' })).toBe(false);
    expect(isStoredKnowledgeNode({ ...stored, parents: [1] })).toBe(false);
    expect(isStoredKnowledgeNode([stored])).toBe(false);
    expect(isStoredKnowledgeNode(null)).toBe(false);
  });

  it('recognises deletion records', () => {
    expect(isDeletedNodeRecord({ nodeId: 'a', project: 'p', reason: null, timestamp: 't', nodeData: stored })).toBe(true);
    expect(isDeletedNodeRecord({ nodeId: 'a', timestamp: 't', nodeData: { id: 'a' } })).toBe(false);
  });

  it('brief entries carry the first non-empty line of the thought', () => {
    expect(toBrief(stored as never)).toEqual({ id: 'a', role: 'critic', tags: ['t'], createdAt: stored.createdAt, thought: 'first line' });
    expect(firstLine('y'.repeat(300)).length).toBe(200);
  });
});
