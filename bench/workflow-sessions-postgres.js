// workflow_continue median latency with the sessions in PostgreSQL beside the file store, same run (issue 16): two
// servers of the same build, one with --database-url (an embedded PostgreSQL with fsync on, or
// WORKGRAPH_BENCH_DATABASE_URL), one on a data dir, each walking one long session; blocks of calls alternate between
// them so machine load falls on both alike. Also at step 1,000 vs step 1 on PostgreSQL (goal: O(1) in the length).
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { workgraph, stats, report, tempDir, startPostgres } = require('./lib.js');
const { longSessionWorkflow: workflow, callTool: call } = require('./lib-sessions.js');

const STEPS = Number(process.env.BENCH_SESSION_STEPS || 1_000);
const SAMPLES = Number(process.env.BENCH_SESSION_SAMPLES || 60);
const BLOCK = 10;

/** A server walking one session: `step(n)` makes n continues and returns their latencies. */
async function walker(args) {
  const client = await workgraph(args);
  let token = (await call(client, 'workflow_start', { workflowId: 'bench-long', goal: 'bench' })).continueToken;
  let done = 0;
  return {
    close: () => client.close(),
    async step(n) {
      const samples = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        token = (await call(client, 'workflow_continue', { continueToken: token, output: { notesMarkdown: `round ${done++}` } })).continueToken;
        samples.push(performance.now() - t0);
      }
      return samples;
    },
  };
}

async function main() {
  const pg = await startPostgres();
  const dir = tempDir('wg-bench-sess-pg-');
  const wfDir = path.join(dir, 'workflows');
  fs.mkdirSync(wfDir);
  fs.writeFileSync(path.join(wfDir, 'bench-long.json'), JSON.stringify(workflow));
  const files = await walker(['--data-dir', path.join(dir, 'files'), '--workflows', wfDir]);
  const db = await walker(['--data-dir', path.join(dir, 'pg'), '--workflows', wfDir, '--database-url', pg.url]);
  try {
    await files.step(BLOCK); // warm-up: first calls load the modules and open the pool
    await db.step(BLOCK);
    const early = { files: [], pg: [] };
    for (let i = 0; i < SAMPLES; i += BLOCK) {
      early.files.push(...(await files.step(BLOCK)));
      early.pg.push(...(await db.step(BLOCK)));
    }
    const f = stats(early.files);
    const p = stats(early.pg);
    report('sessions-postgres', 'workflow_continue median latency, PostgreSQL beside files', p.median, f.median, 'ms', { samples: early.pg.length, pgP99: p.p99, filesP99: f.p99 });
    await db.step(Math.max(0, STEPS - SAMPLES - 2 * BLOCK));
    const late = stats(await db.step(SAMPLES));
    report('sessions-postgres', `PostgreSQL workflow_continue median latency at step ${STEPS} vs early steps`, late.median, p.median, 'ms', { goal: 'ratio <= 1.2' });
  } finally {
    await Promise.all([files.close(), db.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
    await pg.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
