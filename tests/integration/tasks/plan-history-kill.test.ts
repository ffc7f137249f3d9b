import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { taskFixture, type TaskFixture } from './task-fixture';

/**
 * A plan change writes the transition log, the history of changes and the graph in one commit (the graph file, naming
 * both logs' lengths, is the commit point). A process SIGKILLed at random moments while editing loses no edit it
 * answered and leaves nothing half applied: every revision it acknowledged is in the graph with its history entry,
 * beyond them at most the one edit the kill cut short (written, not answered yet), every revision of the graph has
 * exactly its one history entry, none beyond it, and the transition log agrees with the task's status. (The editor
 * loads the TypeScript sources through race/ts-register.js.)
 *
 * Each editor is killed only once it answered an edit: it edits without a pause, so the next one is under way. How
 * many edits it makes first is not assumed — on a loaded machine an editor may answer one edit before its kill, and
 * one killed while it held the project's lock leaves the next waiting for that lock to go stale (4 s in the editor).
 */
const KILLS = Number(process.env.PLAN_KILLS ?? 4);
/** An editor's first edit: up to the stale period of a lock a killed editor left, plus a loaded machine's delays. */
const FIRST_EDIT_MS = 90_000;
let fx: TaskFixture;
beforeEach(async () => {
  fx = await taskFixture();
});
afterEach(async () => fx.cleanup());

interface Ack {
  revision: number;
  action: string;
}

/** Runs an editor until it answered an edit, kills it `afterAckMs` later; every edit it answered, in order. */
async function editThenKill(afterAckMs: number): Promise<Ack[]> {
  const child = spawn(process.execPath, [path.join(__dirname, 'race', 'plan-editor.js'), fx.dataDir, 'kill-plan'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const acks: Ack[] = [];
  let firstAck!: () => void;
  const answered = new Promise<void>((resolve) => (firstAck = resolve));
  // Whole lines only (one cut short by the kill is no answer).
  let rest = '';
  child.stdout.on('data', (d: Buffer) => {
    const lines = (rest + d.toString()).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      const m = /^acked (\d+) ([a-z_]+)$/.exec(line);
      if (!m) continue;
      acks.push({ revision: Number(m[1]), action: m[2] });
      firstAck();
    }
  });
  // 'close': the child exited and its stdout was read to the end, so every answer it printed is in `acks`.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      answered,
      closed.then(() => Promise.reject(new Error(`editor exited before it answered an edit: ${stderr}`))),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`no edit answered in ${FIRST_EDIT_MS} ms: ${stderr}`)), FIRST_EDIT_MS))),
    ]);
    await new Promise((r) => setTimeout(r, afterAckMs));
  } finally {
    clearTimeout(timer);
    child.kill('SIGKILL');
    await closed;
  }
  expect(stderr).toBe('');
  return acks;
}

async function checkConsistent(): Promise<number> {
  const graph = (await fx.store.load('kill-plan'))!;
  const history = await fx.store.readHistory('kill-plan');
  expect(history.map((h) => h.revision)).toEqual(Array.from({ length: graph.revision + 1 }, (_, i) => i));
  const log = await fx.store.readTransitions('kill-plan');
  const starts = log.filter((t) => t.node === 'a' && t.to === 'IN_PROGRESS').length;
  const releases = log.filter((t) => t.node === 'a' && t.from === 'IN_PROGRESS' && t.to === 'READY').length;
  const a = graph.nodes.find((n) => n.id === 'a')!;
  expect(starts - releases).toBe(a.status === 'IN_PROGRESS' ? 1 : 0);
  expect(history.filter((h) => h.action === 'start_task').length).toBe(starts);
  expect(history.filter((h) => h.action === 'release_task').length).toBe(releases);
  return graph.revision;
}

it(`SIGKILL while editing (${KILLS} times): every answered edit is kept with its history entry, the log agrees`, async () => {
  await fx.init.execute({ projectName: 'kill-plan', projectRoot: fx.projectRoot, nodes: [{ id: 'a', title: 'A' }, { id: 'b', title: 'B' }] });
  let revision = 0;
  for (let i = 0; i < KILLS; i++) {
    const acks = await editThenKill((i * 137) % 400);
    // The editor's answers: the revisions after the last one read, one by one.
    expect(acks.map((a) => a.revision)).toEqual(Array.from({ length: acks.length }, (_, k) => revision + 1 + k));
    const now = await checkConsistent();
    // None lost; beyond them at most the edit the kill cut short.
    const lastAcked = acks[acks.length - 1].revision;
    expect(now).toBeGreaterThanOrEqual(lastAcked);
    expect(now).toBeLessThanOrEqual(lastAcked + 1);
    // Each answered revision is the edit answered (its history entry names its action).
    const history = await fx.store.readHistory('kill-plan');
    for (const a of acks) expect(history[a.revision]).toMatchObject({ revision: a.revision, action: a.action });
    revision = now;
  }
}, 600_000);
