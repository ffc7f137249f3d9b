import { lineLogger } from '../../../src/cli/line-logger';

/** A one-shot command's logger (src/cli/line-logger.ts): warnings and errors one plain line each, the rest dropped. */
describe('lineLogger', () => {
  const capture = () => {
    const lines: string[] = [];
    return { lines, logger: lineLogger('workgraph knowledge search', (l) => void lines.push(l)) };
  };

  it('writes a warning or an error as one line in the command prefix, with a child logger fields first', () => {
    const { lines, logger } = capture();
    logger.child({ project: 'notes' }).warn('knowledge search index rebuilt from the graph', { reason: 'no index', nodes: 2, skipped: undefined });
    logger.error('failed', { error: 'disk full\n  at write', detail: { code: 'ENOSPC' } });
    expect(lines).toEqual([
      'workgraph knowledge search: knowledge search index rebuilt from the graph (project: notes, reason: no index, nodes: 2)\n',
      'workgraph knowledge search: failed (error: disk full at write, detail: {"code":"ENOSPC"})\n',
    ]);
  });

  it('drops debug and info: a command that went well prints only its answer', () => {
    const { lines, logger } = capture();
    logger.info('data dir migrated', { step: 'x' });
    logger.debug('detail');
    logger.warn('plain');
    expect(lines).toEqual(['workgraph knowledge search: plain\n']);
  });
});
