import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileSessionStore } from '../../../src/modules/workflow/infrastructure/sessions/file-session-store';
import { InProcessChangeEvents, type ChangeEvent } from '../../../src/kernel/change-events';
import { silentLogger } from '../../../src/kernel/logger';
import type { SessionEvent, SessionStartedEvent } from '../../../src/modules/workflow/domain/sessions';
import { sessionStoreContract } from './session-store.contract';

sessionStoreContract('files', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-sstore-'));
  return { store: new FileSessionStore(path.join(dir, 'sessions'), silentLogger), cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
});

const first = (id: string): SessionStartedEvent => ({
  kind: 'session_started', at: '2026-01-01T00:00:00.000Z', sessionId: id, workflowId: 'wf', workflowVersion: '1', workflowHash: 'h',
  context: {}, next: { completionId: 'a', stepId: 'a', title: 'A' },
});
const advance = (from: number, node: number): SessionEvent => ({
  kind: 'step_completed', at: '2026-01-01T00:00:01.000Z', from, node, completionId: `s${node}`, title: 'S', outputHash: `h${node}`, next: { completionId: 'x', stepId: 'x', title: 'X' },
});

describe('FileSessionStore specifics', () => {
  let dir: string;
  let root: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-sfile-'));
    root = path.join(dir, 'sessions');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lays a session out as a folder with an append-only log, a snapshot and the pinned workflow', async () => {
    const store = new FileSessionStore(root, silentLogger);
    await store.create(first('00000000000000a1'), '{"id":"wf"}');
    await store.update('00000000000000a1', async () => ({ events: [advance(0, 1)], result: null }));
    expect(fs.readdirSync(path.join(root, '00000000000000a1')).filter((f) => !f.startsWith('.')).sort()).toEqual(['events.ndjson', 'snapshot.json', 'workflow.json']);
    const lines = fs.readFileSync(path.join(root, '00000000000000a1', 'events.ndjson'), 'utf8').trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).kind)).toEqual(['session_started', 'step_completed']);
  });

  it('ignores a cut last line (reported in the history, logged), and the next append starts on a fresh line', async () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (m: string) => warnings.push(m), child: () => logger };
    const store = new FileSessionStore(root, logger);
    await store.create(first('00000000000000b2'), '{}');
    const log = path.join(root, '00000000000000b2', 'events.ndjson');
    fs.appendFileSync(log, '{"kind":"step_completed","at":"2026');
    expect((await store.load('00000000000000b2')).head.node).toBe(0);
    await store.update('00000000000000b2', async (s) => ({ events: [advance(s.head.node, s.nodeCount)], result: null }));
    expect(warnings.join('\n')).toContain('damaged line');
    const h = await store.history('00000000000000b2');
    expect(h.events.map((e) => e.kind)).toEqual(['session_started', 'step_completed']);
    expect(h.damaged).toHaveLength(1);
    expect(h.damaged[0]).toMatchObject({ line: 2 });
    expect((await store.load('00000000000000b2')).head.node).toBe(1);
  });

  it('recovers from a missing, torn or stale snapshot by folding the log', async () => {
    const store = new FileSessionStore(root, silentLogger);
    await store.create(first('00000000000000c3'), '{}');
    await store.update('00000000000000c3', async () => ({ events: [advance(0, 1), advance(1, 2)], result: null }));
    const snap = path.join(root, '00000000000000c3', 'snapshot.json');
    fs.writeFileSync(snap, '{"version":1,"logOff');
    expect((await store.load('00000000000000c3')).head.node).toBe(2);
    fs.rmSync(snap);
    expect((await store.load('00000000000000c3')).head.completedSteps).toEqual(['s1', 's2']);
  });

  it('a wrong snapshot (no head, another session\'s, another log\'s) is rebuilt from the log, never "Cannot read properties of undefined"', async () => {
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (m: string, f?: Record<string, unknown>) => void warnings.push(`${m} ${JSON.stringify(f)}`) };
    const store = new FileSessionStore(root, logger);
    await store.create(first('00000000000000c4'), '{}');
    await store.update('00000000000000c4', async () => ({ events: [advance(0, 1)], result: null }));
    const snap = path.join(root, '00000000000000c4', 'snapshot.json');
    const good = JSON.parse(fs.readFileSync(snap, 'utf8'));
    const size = fs.statSync(path.join(root, '00000000000000c4', 'events.ndjson')).size;
    const wrongs = [
      { version: 1, logOffset: size, lines: 2, state: { sessionId: '00000000000000c4' } }, // the issue's: state without head
      { ...good, state: { ...good.state, head: undefined } },
      { ...good, state: { ...good.state, sessionId: '00000000000000ff' } },
      { ...good, tail: { ...good.tail, sha256: '0'.repeat(64) } },
      { ...good, logOffset: good.logOffset - 3 },
      { ...good, state: { ...good.state, head: { ...good.state.head, completedSteps: 'x' } } },
    ];
    for (const wrong of wrongs) {
      fs.writeFileSync(snap, JSON.stringify(wrong));
      const r = await store.update('00000000000000c4', async (state) => ({ events: [], result: state.head.node }));
      expect(r).toBe(1);
      expect((await store.load('00000000000000c4')).head.completedSteps).toEqual(['s1']);
      // Rebuilt: the snapshot on disk is a good one again.
      expect(JSON.parse(fs.readFileSync(snap, 'utf8'))).toMatchObject({ version: 2, logOffset: size, state: { head: { node: 1 } } });
    }
    // Every wrong one but the version 1 snapshot (an older server's, rebuilt silently) is named in a warning.
    expect(warnings.filter((w) => w.includes('snapshot not used')).length).toBeGreaterThanOrEqual(wrongs.length - 1);
    await store.update('00000000000000c4', async () => ({ events: [advance(1, 2)], result: null }));
    expect((await store.load('00000000000000c4')).head.node).toBe(2);
  });

  it('a duplicated session_started line is reported as damage and never applied: the session does not reset', async () => {
    const store = new FileSessionStore(root, silentLogger);
    await store.create(first('00000000000000c5'), '{}');
    await store.update('00000000000000c5', async () => ({ events: [advance(0, 1), advance(1, 2)], result: null }));
    const log = path.join(root, '00000000000000c5', 'events.ndjson');
    fs.appendFileSync(log, fs.readFileSync(log, 'utf8').split('\n')[0] + '\n');
    // A stale snapshot (before the duplicate) and no snapshot at all: both read the duplicate and must skip it.
    for (const dropSnapshot of [false, true]) {
      if (dropSnapshot) fs.rmSync(path.join(root, '00000000000000c5', 'snapshot.json'));
      const state = await store.load('00000000000000c5');
      expect(state.head.node).toBe(2);
      expect(state.head.completedSteps).toEqual(['s1', 's2']);
      const h = await store.history('00000000000000c5');
      expect(h.events.map((e) => e.kind)).toEqual(['session_started', 'step_completed', 'step_completed']);
      expect(h.damaged).toEqual([expect.objectContaining({ line: 4, reason: expect.stringContaining('a second session_started') })]);
    }
    // A step out of order (from a point that is not the head) is damage too.
    fs.appendFileSync(log, JSON.stringify(advance(0, 3)) + '\n');
    expect((await store.load('00000000000000c5')).head.node).toBe(2);
    expect((await store.history('00000000000000c5')).damaged.map((d) => d.line)).toEqual([4, 5]);
    // And the run goes on from the real head.
    await store.update('00000000000000c5', async (s) => ({ events: [advance(s.head.node, s.nodeCount)], result: null }));
    expect((await store.load('00000000000000c5')).head.completedSteps).toEqual(['s1', 's2', 's3']);
  });

  it('refuses to append an event that cannot follow the log (nothing is written)', async () => {
    const store = new FileSessionStore(root, silentLogger);
    await store.create(first('00000000000000c6'), '{}');
    const log = path.join(root, '00000000000000c6', 'events.ndjson');
    const before = fs.readFileSync(log, 'utf8');
    await expect(store.update('00000000000000c6', async () => ({ events: [first('00000000000000c6')], result: null }))).rejects.toMatchObject({ code: 'storage_error' });
    expect(fs.readFileSync(log, 'utf8')).toBe(before);
  });

  it('rebuilds a missing index from the session folders, and a second process sees appended entries', async () => {
    const a = new FileSessionStore(root, silentLogger);
    await a.create(first('00000000000000d4'), '{}');
    fs.rmSync(path.join(root, 'index.ndjson'));
    const b = new FileSessionStore(root, silentLogger);
    expect((await b.list()).map((s) => s.sessionId)).toEqual(['00000000000000d4']);
    await a.create(first('00000000000000e5'), '{}');
    expect((await b.list()).map((s) => s.sessionId).sort()).toEqual(['00000000000000d4', '00000000000000e5']);
  });

  it('compacts the index when it holds far more lines than sessions', async () => {
    const store = new FileSessionStore(root, silentLogger);
    await store.create(first('00000000000000f6'), '{}');
    for (let i = 0; i < 1_010; i++) fs.appendFileSync(path.join(root, 'index.ndjson'), `${fs.readFileSync(path.join(root, 'index.ndjson'), 'utf8').split('\n')[0]}\n`);
    await store.update('00000000000000f6', async (s) => ({ events: [advance(0, s.nodeCount)], result: null }));
    const lines = fs.readFileSync(path.join(root, 'index.ndjson'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect((await new FileSessionStore(root, silentLogger).list())[0].current?.completionId).toBe('x');
  });

  it('publishes a change event per change', async () => {
    const changes = new InProcessChangeEvents();
    const seen: ChangeEvent[] = [];
    changes.subscribe((e) => seen.push(e));
    const store = new FileSessionStore(root, silentLogger, changes);
    await store.create(first('0000000000000a07'), '{}');
    await store.update('0000000000000a07', async () => ({ events: [advance(0, 1)], result: null }));
    await store.update('0000000000000a07', async () => ({ events: [], result: null }));
    await store.delete('0000000000000a07');
    expect(seen.map((e) => [e.kind, e.id])).toEqual([
      ['session', '0000000000000a07'],
      ['session', '0000000000000a07'],
      ['session', '0000000000000a07'],
    ]);
  });
});
