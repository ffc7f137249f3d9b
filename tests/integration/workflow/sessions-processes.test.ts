import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { NODE_MODULES, transpileSrc } from '../knowledge/support/transpile-src';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { makeKit, longWorkflow } = require('./support/session-kit.js');

const run = promisify(execFile);
const SRC = path.resolve(__dirname, '../../../src');
const WORKER = path.join(__dirname, 'support', 'session-worker.js');
/** SIGKILLs during continues: 8 in `npm test`; `npm run stress` sets SESSION_CRASH_ITERATIONS=50. */
const KILLS = Number(process.env.SESSION_CRASH_ITERATIONS ?? 8);

describe('sessions across processes', () => {
  let tmp: string;
  let compiled: string;
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-sproc-'));
    compiled = transpileSrc(path.join(tmp, 'build'), ['kernel', 'modules/workflow']);
  });
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const env = { ...process.env, NODE_PATH: NODE_MODULES };

  it('two processes continuing one token at once: one advances; the other gets conflict, or the same answer when its output was identical', async () => {
    for (const [notesA, notesB] of [['mine', 'theirs'], ['same', 'same']]) {
      const dataDir = fs.mkdtempSync(path.join(tmp, 'race-'));
      const kit = makeKit(SRC, dataDir, [longWorkflow(1000)]);
      const s = await kit.start.execute({ workflowId: 'long' });
      const startAt = String(Date.now() + 3_000);
      const outs = await Promise.all(
        [notesA, notesB].map((notes) => run(process.execPath, [WORKER, 'race', compiled, dataDir, s.continueToken, notes, startAt], { env, timeout: 60_000 })),
      );
      const results = outs.map((o) => JSON.parse(o.stdout.trim()));
      const h = await kit.store.history(s.sessionId);
      expect(h.events.filter((e: { kind: string }) => e.kind === 'step_completed')).toHaveLength(1);
      if (notesA !== notesB) {
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        const loser = results.find((r) => !r.ok);
        expect(loser.code).toBe('conflict');
        expect(loser.message).toContain(results.find((r) => r.ok).continueToken);
      } else {
        expect(results.every((r) => r.ok && r.status === 'advanced')).toBe(true);
        expect(results[0].continueToken).toBe(results[1].continueToken);
        expect(results.filter((r) => r.replayed)).toHaveLength(1);
      }
    }
  }, 120_000);

  it(`SIGKILL at random moments during continues (${KILLS} times): the session always loads with every acknowledged advance`, async () => {
    const dataDir = fs.mkdtempSync(path.join(tmp, 'crash-'));
    const ROUNDS = 100_000;
    const kit = makeKit(SRC, dataDir, [longWorkflow(ROUNDS)]);
    const s = await kit.start.execute({ workflowId: 'long' });
    let token: string = s.continueToken;
    let acked = 0;
    for (let i = 0; i < KILLS; i++) {
      const child = spawn(process.execPath, [WORKER, 'walk', compiled, dataDir, token, String(ROUNDS)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('READY')) resolve();
        });
        child.on('exit', (code) => reject(new Error(`worker ended early (${code}): ${stderr}`)));
      });
      // Let it make some progress, then kill it at a random moment (mid-append, mid-snapshot, mid-index, anywhere).
      await new Promise((r) => setTimeout(r, 50 + Math.floor(Math.random() * 400)));
      child.kill('SIGKILL');
      await exited;
      const acks = out.split('\n').filter((l) => l.startsWith('ACK '));
      if (acks.length) {
        const [, n, t] = acks[acks.length - 1].split(' ');
        acked = Number(n);
        token = t;
      }
      // A fresh store (another process's view) loads it, with at least every acknowledged advance.
      const fresh = makeKit(SRC, dataDir, [longWorkflow(ROUNDS)]);
      const state = await fresh.store.load(s.sessionId);
      expect(state.head.completedSteps.length).toBeGreaterThanOrEqual(acked);
      const h = await fresh.store.history(s.sessionId);
      expect(h.events.filter((e: { kind: string }) => e.kind === 'step_completed').length).toBe(state.head.completedSteps.length);
      expect(state.head.completedSteps).toEqual(Array.from({ length: state.head.completedSteps.length }, (_, k) => `rounds[${k}].work`));
      // The last acknowledged token still works: it is the head, or a replay/conflict names the head.
      if (state.head.completedSteps.length > acked) {
        const head = await fresh.tokens.sign({ kind: 'continue', sessionId: s.sessionId, node: state.head.node });
        token = head;
      }
    }
    expect(acked).toBeGreaterThan(0);
    const listed = await makeKit(SRC, dataDir, [longWorkflow(ROUNDS)]).store.list();
    expect(listed.map((x: { sessionId: string }) => x.sessionId)).toEqual([s.sessionId]);
  }, 600_000);
});
