// The living plan (issue 22), in one run:
// 1. An edit (add_tasks of one task, update_task) in a 10,000-task project beside the same edit in a 100-task one,
//    on the file store and on PostgreSQL: the ratio says how an edit's cost grows with the plan.
// 2. claim_next_task with 8 concurrent agents on one PostgreSQL project: claims per second beside one agent's
//    start_task loop on the same kind of project.
// The real use cases from dist/ (run `npm run build` first; `npm run bench -- tasks-living-plan` does).
// Edits per case: BENCH_PLAN_EDITS (default 30); claim seconds: BENCH_PLAN_SECONDS (default 5).
require('reflect-metadata');
const fs = require('node:fs');
const path = require('node:path');
const { tempDir, report, startPostgres, stats } = require('./lib.js');

const EDITS = Number(process.env.BENCH_PLAN_EDITS || 30);
const SECONDS = Number(process.env.BENCH_PLAN_SECONDS || 5);
const dist = path.join(__dirname, '..', 'dist');
const req = (p) => require(path.join(dist, p));
const { PlanChanges } = req('modules/tasks/application/services/plan-changes');
const { AddTasks } = req('modules/tasks/application/use-cases/add-tasks');
const { UpdateTask } = req('modules/tasks/application/use-cases/update-task');
const { StartTask } = req('modules/tasks/application/use-cases/start-task');
const { ClaimNextTask } = req('modules/tasks/application/use-cases/claim-next-task');
const { createTaskGraph } = req('modules/tasks/domain/create-task-graph');
const clock = { now: () => Date.now() };

function graphOf(id, n) {
  const nodes = Array.from({ length: n }, (_, i) => ({ id: `t${i}`, title: `Task ${i}`, ...(i % 10 ? { depends_on: [`t${i - 1}`] } : {}) }));
  return createTaskGraph({ projectId: id, projectName: id, projectRoot: '/tmp', nodes, now: new Date().toISOString() });
}

async function pgStore(url, pool) {
  const { PgDatabase } = req('kernel/postgres/pg-database');
  const { migrate } = req('kernel/postgres/migrations');
  const { tasksMigrations } = req('modules/tasks/infrastructure/postgres/tasks-migrations');
  const { PgTaskGraphStore } = req('modules/tasks/infrastructure/postgres/pg-task-graph-store');
  const db = new PgDatabase(url, { poolSize: pool });
  await migrate(db, tasksMigrations);
  return { store: new PgTaskGraphStore(db), close: () => db.close() };
}

function fileStore(dir) {
  const { FileTaskGraphStore } = req('modules/tasks/infrastructure/file-task-graph-store');
  const { ProjectLayout } = req('kernel/files/project-layout');
  return { store: new FileTaskGraphStore(new ProjectLayout(dir)), close: async () => undefined };
}

/** Median ms of one add_tasks (one task) and one update_task in a project of `n` tasks. */
async function editCost(store, n) {
  const id = `edit-${n}`;
  await store.create(graphOf(id, n), { replace: true });
  const plan = new PlanChanges(store, clock, 'bench');
  const add = new AddTasks(store, plan);
  const update = new UpdateTask(store, plan);
  const adds = [];
  const updates = [];
  for (let i = 0; i < EDITS; i++) {
    let t = process.hrtime.bigint();
    await add.execute({ project: id, nodes: [{ id: `new${i}`, title: 'new', depends_on: ['t0'] }] });
    adds.push(Number(process.hrtime.bigint() - t) / 1e6);
    t = process.hrtime.bigint();
    await update.execute({ project: id, nodeId: `t${i + 1}`, title: `edit ${i}`, priority: 'high' });
    updates.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  return { add: stats(adds).median, update: stats(updates).median };
}

/** Tasks started per second: `agents` concurrent loops of `call` for SECONDS on a project of READY tasks. */
async function startRate(store, agents, call) {
  const id = `claims-${agents}-${call}`;
  const nodes = Array.from({ length: 20_000 }, (_, i) => ({ id: `c${i}`, title: `C ${i}` }));
  await store.create(createTaskGraph({ projectId: id, projectName: id, projectRoot: '/tmp', nodes: nodes.slice(0, 3000), now: new Date().toISOString() }), { replace: true });
  const plan = new PlanChanges(store, clock, 'bench');
  const claim = new ClaimNextTask(store, plan);
  const start = new StartTask(store, plan);
  const end = Date.now() + SECONDS * 1000;
  let next = 0;
  const loops = Array.from({ length: agents }, async (_, a) => {
    let n = 0;
    while (Date.now() < end) {
      if (call === 'claim') {
        const r = await claim.execute({ project: id, agent: `agent-${a}` });
        if (!r.claimed) break;
      } else {
        await start.execute({ project: id, nodeId: `c${next++}`, agent: 'solo' });
      }
      n++;
    }
    return n;
  });
  const counts = await Promise.all(loops);
  return counts.reduce((x, y) => x + y, 0) / SECONDS;
}

async function main() {
  const pg = await startPostgres();
  const dir = tempDir('wg-bench-plan-');
  try {
    for (const [name, make] of [['files', async () => fileStore(dir)], ['PostgreSQL', async () => pgStore(pg.url, 8)]]) {
      const s = await make();
      const small = await editCost(s.store, 100);
      const big = await editCost(s.store, 10_000);
      report('tasks-living-plan', `${name}: add_tasks of one task, 10,000-task project beside 100-task`, big.add, small.add, 'ms (median)', { edits: EDITS });
      report('tasks-living-plan', `${name}: update_task, 10,000-task project beside 100-task`, big.update, small.update, 'ms (median)', { edits: EDITS });
      await s.close();
    }
    const s = await pgStore(pg.url, 8);
    const solo = await startRate(s.store, 1, 'start');
    const eight = await startRate(s.store, 8, 'claim');
    const one = await startRate(s.store, 1, 'claim');
    report('tasks-living-plan', 'PostgreSQL: claim_next_task claims/s, 8 concurrent agents beside one agent start_task', eight, solo, 'tasks started/s', { seconds: SECONDS, projectTasks: 3000 });
    report('tasks-living-plan', 'PostgreSQL: claim_next_task claims/s, 1 agent beside start_task', one, solo, 'tasks started/s', { seconds: SECONDS, projectTasks: 3000 });
    await s.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await pg.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
