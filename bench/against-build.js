// This build against another build of workgraph, measured interleaved in one run: cold start (spawn to the first
// tools/list answer: the server's figure, and the SDK listTools figure that adds the client's compiling of every output
// schema — see coldStartOnce in bench/lib.js), the tools/list answer's bytes, the modules loaded by then, and
// workflow_next latency through the SDK's real client. Goals: cold start <= 1.1x the other build, tools/list bytes
// unchanged or smaller, workflow_next within the noise of a shared machine (<= 1.05x).
//
// The other build: BENCH_BEFORE_ROOT=<a checkout with `npm ci && npm run build` done>, or BENCH_BEFORE_REF=<any git
// ref or commit> (BENCH_BEFORE_COMMIT is the same), default HEAD~1: a detached worktree of this repository at that
// commit is made under the temp folder and its server built there with tsc (the dashboard is not needed to serve), once
// per commit. Its dependencies are this checkout's node_modules when that build compiles with them (same lockfile, or
// close enough); otherwise `npm ci` installs its own.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { ROOT, CLI, workgraphAt, stats, report, tempDir, coldStartOnce, loadedModules } = require('./lib.js');

const COLD_RUNS = Number(process.env.BENCH_COLD_RUNS || 15);
const CALLS = Number(process.env.BENCH_RPC_CALLS || 5_000);
const ROUNDS = 3;

/** The other build's CLI, building it first from BENCH_BEFORE_REF / BENCH_BEFORE_COMMIT (default HEAD~1) when needed. */
function beforeCli() {
  let root = process.env.BENCH_BEFORE_ROOT;
  if (!root) {
    const ref = process.env.BENCH_BEFORE_REF || process.env.BENCH_BEFORE_COMMIT || 'HEAD~1';
    const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--verify', `${ref}^{commit}`], { encoding: 'utf8' }).trim();
    root = path.join(os.tmpdir(), `workgraph-before-${commit.slice(0, 12)}`);
    if (!fs.existsSync(path.join(root, 'dist', 'cli', 'main.js'))) buildAt(root, commit);
    console.error(`against-build: the other build is ${ref} (${commit.slice(0, 12)}), in ${root}`);
  }
  const cli = path.join(root, 'dist', 'cli', 'main.js');
  if (!fs.existsSync(cli)) throw new Error(`${cli} does not exist: build that checkout first (npm ci && npm run build)`);
  return cli;
}

/** A worktree of `commit` at `root` with its server built: on this checkout's node_modules when it compiles with them. */
function buildAt(root, commit) {
  if (!fs.existsSync(root)) execFileSync('git', ['-C', ROOT, 'worktree', 'add', '--detach', root, commit], { stdio: 'inherit' });
  const modules = path.join(root, 'node_modules');
  const tsc = () => execFileSync(process.execPath, [path.join(modules, 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  if (!fs.existsSync(modules)) fs.symlinkSync(path.join(ROOT, 'node_modules'), modules);
  try {
    tsc();
    return;
  } catch {
    console.error(`against-build: ${commit.slice(0, 12)} does not build on this checkout's node_modules; installing its own (npm ci)`);
  }
  fs.rmSync(modules, { recursive: true, force: true });
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
  tsc();
}

/** Both builds run in an empty folder: neither reads this checkout's ./workflows (the older build may not read its format). */
const CWD = tempDir('wg-bench-cwd-');

const coldStart = (cli, dataDir) => coldStartOnce(() => workgraphAt(cli, ['--data-dir', dataDir], {}, CWD));

async function latencies(client, args) {
  const samples = new Array(CALLS);
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    const r = await client.callTool({ name: 'workflow_next', arguments: args });
    samples[i] = performance.now() - t0;
    if (r.isError) throw new Error(`workflow_next failed: ${JSON.stringify(r.content)}`);
  }
  return stats(samples);
}

async function main() {
  const before = beforeCli();
  const dataNow = tempDir('wg-bench-now-');
  const dataBefore = tempDir('wg-bench-before-');
  const builds = { now: CLI, before };
  const data = { now: dataNow, before: dataBefore };

  // Cold start, alternating which build goes first so neither always meets a warmer cache.
  const cold = { now: [], before: [] };
  for (const b of ['now', 'before']) await coldStart(builds[b], data[b]); // warm the file system cache for both
  for (let i = 0; i < COLD_RUNS; i++) {
    const order = i % 2 ? ['now', 'before'] : ['before', 'now'];
    for (const b of order) cold[b].push(await coldStart(builds[b], data[b]));
  }
  const median = (b, key) => stats(cold[b].map((r) => r[key])).median;
  report('against-build', 'cold start: spawn to first tools/list answer (server), this build vs the other', median('now', 'server'), median('before', 'server'), 'ms', {
    runs: COLD_RUNS,
    before,
    goal: 'ratio <= 1.1',
  });
  report('against-build', 'cold start: spawn to first tools/list, SDK listTools (answer + client compiles output schemas), this build vs the other', median('now', 'sdk'), median('before', 'sdk'), 'ms', {
    runs: COLD_RUNS,
    tools: cold.now[0].tools,
    baselineTools: cold.before[0].tools,
  });
  report('against-build', 'tools/list answer bytes (JSON), this build vs the other', cold.now[0].bytes, cold.before[0].bytes, 'bytes', {
    tools: cold.now[0].tools,
    baselineTools: cold.before[0].tools,
    goal: 'ratio <= 1 (unchanged or smaller)',
  });
  const loaded = { now: await loadedModules([CLI, 'serve', '--data-dir', dataNow], {}, CWD), before: await loadedModules([before, 'serve', '--data-dir', dataBefore], {}, CWD) };
  report('against-build', 'modules loaded when the first tools/list is answered, this build vs the other', loaded.now.modules, loaded.before.modules, 'modules', {
    own: loaded.now.own,
    baselineOwn: loaded.before.own,
  });

  // workflow_next latency: both servers up, rounds interleaved, best round's median of each.
  const args = { workflowId: 'review-change', completedSteps: [], context: {} };
  const clients = { now: await workgraphAt(builds.now, ['--data-dir', dataNow], {}, CWD), before: await workgraphAt(builds.before, ['--data-dir', dataBefore], {}, CWD) };
  try {
    for (const b of ['now', 'before']) for (let i = 0; i < 500; i++) await clients[b].callTool({ name: 'workflow_next', arguments: args });
    const rounds = { now: [], before: [] };
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 ? ['now', 'before'] : ['before', 'now'];
      for (const b of order) rounds[b].push(await latencies(clients[b], args));
    }
    const best = (b, key) => Math.min(...rounds[b].map((s) => s[key]));
    report('against-build', 'workflow_next median latency, this build vs the other', best('now', 'median'), best('before', 'median'), 'ms', {
      calls: CALLS,
      rounds: ROUNDS,
      goal: 'ratio <= 1.05',
    });
    report('against-build', 'workflow_next p99 latency, this build vs the other', best('now', 'p99'), best('before', 'p99'), 'ms', { calls: CALLS, rounds: ROUNDS });
  } finally {
    await clients.now.close();
    await clients.before.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
