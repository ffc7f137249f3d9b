import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { PlanChanges } from '../../../src/modules/tasks/application/services/plan-changes';
import { StartTask } from '../../../src/modules/tasks/application/use-cases/start-task';
import { systemClock } from '../../../src/kernel/clock';
import { FileTaskGraphStore } from '../../../src/modules/tasks/infrastructure/file-task-graph-store';
import { taskFixture, type TaskFixture } from './task-fixture';

const run = promisify(execFile);

let fx: TaskFixture;
beforeEach(async () => {
  fx = await taskFixture();
  await fx.init.execute({
    projectName: 'race',
    projectRoot: fx.projectRoot,
    nodes: Array.from({ length: 5 }, (_, i) => ({ id: `t${i}`, title: `T${i}` })),
  });
});
afterEach(async () => {
  await fx.cleanup();
});

describe('start_task compare-and-swap races', () => {
  it('two store instances in one process racing on each READY node: exactly one winner per node', async () => {
    const a = ((st) => new StartTask(st, new PlanChanges(st, systemClock, 'h')))(new FileTaskGraphStore(fx.layout));
    const b = ((st) => new StartTask(st, new PlanChanges(st, systemClock, 'h')))(new FileTaskGraphStore(fx.layout));
    for (let i = 0; i < 5; i++) {
      const results = await Promise.allSettled([a.execute({ project: 'race', nodeId: `t${i}` }), b.execute({ project: 'race', nodeId: `t${i}` })]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const loser = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(loser.reason.code).toBe('invalid_transition');
      expect(loser.reason.message).toContain('is IN_PROGRESS');
    }
    const log = await fx.store.readTransitions('race');
    expect(log.filter((t) => t.to === 'IN_PROGRESS')).toHaveLength(5);
  });

  it('two separate Node processes racing start_task on one READY node: one wins, one clear error, file valid', async () => {
    // The racers load the TypeScript sources through typescript.transpileModule (race/ts-register.js): no build needed.
    const racer = path.join(__dirname, 'race', 'start-task-racer.js');
    const startAt = String(Date.now() + 2_500); // both processes are loaded by then; they fire together
    const outs = await Promise.all(
      [0, 1].map(() => run(process.execPath, [racer, fx.dataDir, 'race', 't0', startAt], { timeout: 60_000 })),
    );
    const results = outs.map((o) => JSON.parse(o.stdout.trim()) as { ok: boolean; code?: string; message?: string });
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    const loser = results.find((r) => !r.ok)!;
    expect(loser.code).toBe('invalid_transition');
    expect(loser.message).toMatch(/task 't0' is IN_PROGRESS; start_task is not allowed/);
    const file = JSON.parse(await fs.readFile(fx.store.graphFile('race'), 'utf8'));
    expect(file.nodes[0].status).toBe('IN_PROGRESS');
    expect(file.revision).toBe(1);
    const log = await fx.store.readTransitions('race');
    expect(log.filter((t) => t.node === 't0' && t.to === 'IN_PROGRESS')).toHaveLength(1);
  }, 60_000);
});
