import { spawn } from 'node:child_process';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { taskFixture, type TaskFixture } from './task-fixture';

/**
 * A plan change writes the transition log, the history of changes and the graph in one commit (the graph file, naming
 * both logs' lengths, is the commit point). A process SIGKILLed at random moments while editing leaves nothing half
 * applied: every revision of the graph has exactly its one history entry, none beyond it, and the transition log
 * agrees with the task's status. (The editor loads the TypeScript sources through race/ts-register.js.)
 */
const KILLS = Number(process.env.PLAN_KILLS ?? 4);
let fx: TaskFixture;
beforeEach(async () => {
  fx = await taskFixture();
});
afterEach(async () => fx.cleanup());

async function editThenKill(delayMs: number): Promise<void> {
  const child = spawn(process.execPath, [path.join(__dirname, 'race', 'plan-editor.js'), fx.dataDir, 'kill-plan'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    readline.createInterface({ input: child.stdout }).once('line', () => resolve());
    child.once('exit', (code) => reject(new Error(`editor exited (${code}) before it was ready: ${stderr}`)));
  });
  await new Promise((r) => setTimeout(r, delayMs));
  child.kill('SIGKILL');
  await exited;
  expect(stderr).toBe('');
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

it(`SIGKILL while editing (${KILLS} times): every revision has exactly its history entry, the log agrees`, async () => {
  await fx.init.execute({ projectName: 'kill-plan', projectRoot: fx.projectRoot, nodes: [{ id: 'a', title: 'A' }, { id: 'b', title: 'B' }] });
  let revision = 0;
  for (let i = 0; i < KILLS; i++) {
    await editThenKill(50 + ((i * 137) % 400));
    const now = await checkConsistent();
    expect(now).toBeGreaterThanOrEqual(revision);
    revision = now;
  }
  expect(revision).toBeGreaterThan(KILLS);
}, 180_000);
