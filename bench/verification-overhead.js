// A workflow verification step of the command `true` run by the server (issue 24), beside a bare
// child_process.spawn('sh -c true') to its exit, measured in the same run (interleaved). Goal: the server's overhead
// at most 30 ms above the bare spawn, as for validate_task_loop. Measured through the SDK's real MCP client against
// the built server, twice: stateless workflow_next completing the verification step, and workflow_continue of a
// durable session on it (each run a fresh session; its start and the parent step are not timed).
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { tempDir, stats, report, workgraph } = require('./lib.js');

const RUNS = Number(process.env.BENCH_VERIFY_RUNS || 100);
const WARMUP = 5;

function bareSpawn() {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', 'true']);
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`true exited ${code}`))));
  });
}

async function timed(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

async function measure(prepare, run) {
  const ours = [];
  const bare = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const state = await prepare(i);
    const v = await timed(() => run(state));
    const b = await timed(bareSpawn);
    if (i >= WARMUP) {
      ours.push(v);
      bare.push(b);
    }
  }
  return { ours: stats(ours), bare: stats(bare) };
}

function round(x) {
  return Math.round(x * 1000) / 1000;
}

function reportOverhead(how, m) {
  report('verification-overhead', `verification step of true (${how}) median`, m.ours.median, m.bare.median, 'ms', { runs: RUNS, p99: round(m.ours.p99), spawnP99: round(m.bare.p99) });
  report('verification-overhead', `verification step of true (${how}) median overhead above a bare spawn`, m.ours.median - m.bare.median, undefined, 'ms', { goal: 'value <= 30 ms' });
}

async function main() {
  const tmp = tempDir('wg-bench-verify-');
  const workflows = path.join(tmp, 'workflows');
  const ws = path.join(tmp, 'ws');
  fs.mkdirSync(workflows);
  fs.mkdirSync(ws);
  fs.writeFileSync(
    path.join(workflows, 'verify.json'),
    JSON.stringify({
      id: 'wg.bench-verify',
      name: 'Bench verify',
      description: 'One step proven by `true`.',
      version: '1.0.0',
      steps: [
        { id: 'build', title: 'Build', prompt: 'Build.', verification: { command: 'true' } },
        { id: 'ship', title: 'Ship', prompt: 'Ship.' },
      ],
    }),
  );
  const client = await workgraph(['--data-dir', path.join(tmp, 'data'), '--workflows', workflows, '--allow-root', tmp]);
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name}: ${r.content[0].text}`);
    return r.structuredContent;
  };
  try {
    const stateless = await measure(
      async () => undefined,
      async () => {
        const r = await call('workflow_next', { workflowId: 'wg.bench-verify', completedSteps: ['build', 'build__verification'], workspacePath: ws });
        if (!r.verification || r.verification.verified !== true) throw new Error(`not verified: ${JSON.stringify(r.verification)}`);
      },
    );
    reportOverhead('workflow_next', stateless);
    // The plain workflow_continue of the parent step (no command), timed alongside: what any continue costs.
    const plain = [];
    const session = await measure(
      async (i) => {
        const s = await call('workflow_start', { workflowId: 'wg.bench-verify', workspacePath: ws });
        let v;
        const t = await timed(async () => (v = await call('workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'built' } })));
        if (i >= WARMUP) plain.push(t);
        return v.continueToken;
      },
      async (token) => {
        const r = await call('workflow_continue', { continueToken: token });
        if (!r.verification || r.verification.verified !== true) throw new Error(`not verified: ${JSON.stringify(r.verification)}`);
      },
    );
    reportOverhead('session workflow_continue', session);
    const p = stats(plain);
    report('verification-overhead', 'session workflow_continue of a step without verification median (what any continue costs)', p.median, undefined, 'ms', { p99: round(p.p99) });
    report(
      'verification-overhead',
      'session verification step of true median overhead above a plain workflow_continue plus a bare spawn',
      session.ours.median - p.median - session.bare.median,
      undefined,
      'ms',
      { goal: 'value <= 30 ms' },
    );
  } finally {
    await client.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
