// Durable sessions (issue 13):
// - workflow_continue median latency at step 1 and at step 1,000 of one long session (goal: ratio <= 1.2, i.e. O(1)
//   in the session's length), beside workflow_next on the same workflow at the same points (its cost grows with
//   completedSteps, which the agent sends every time); the two points are measured interleaved (a call at step 1 on a
//   fresh session, then one on the long session), so load changes on a shared machine hit both alike;
// - workflow_resume over 10,000 stored sessions (goal: under 50 ms), beside the bare SDK echo tool.
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { workgraph, echoServer, stats, report, tempDir, ROOT } = require('./lib.js');
const { longSessionWorkflow: workflow, callTool: call } = require('./lib-sessions.js');

const STEPS = Number(process.env.BENCH_SESSION_STEPS || 1_000);
const SAMPLES = Number(process.env.BENCH_SESSION_SAMPLES || 40);
const SESSIONS = Number(process.env.BENCH_SESSIONS || 10_000);


/** `n` continues from `token`; returns the latencies and the last token. */
async function continues(client, token, n) {
  const samples = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const a = await call(client, 'workflow_continue', { continueToken: token, output: { notesMarkdown: `round ${i}` } });
    samples.push(performance.now() - t0);
    token = a.continueToken;
  }
  return { samples, token };
}

async function continueBench() {
  const dir = tempDir('wg-bench-sess-');
  const wfDir = path.join(dir, 'workflows');
  fs.mkdirSync(wfDir);
  fs.writeFileSync(path.join(wfDir, 'bench-long.json'), JSON.stringify(workflow));
  const wg = await workgraph(['--data-dir', path.join(dir, 'data'), '--workflows', wfDir]);
  try {
    // Warm-up on another session first, so that step 1 is measured on a warm server (code loaded and compiled).
    const warm = await call(wg, 'workflow_start', { workflowId: 'bench-long', goal: 'warm-up' });
    await continues(wg, warm.continueToken, 2 * SAMPLES);
    // One session walked to step STEPS, and SAMPLES fresh sessions at step 1. Measured interleaved — a continue at
    // step 1 (on the next fresh session), then one of the long session — so the machine's load hits both alike.
    const s = await call(wg, 'workflow_start', { workflowId: 'bench-long', goal: 'bench' });
    let token = (await continues(wg, s.continueToken, STEPS)).token;
    const fresh = [];
    for (let i = 0; i < SAMPLES; i++) fresh.push((await call(wg, 'workflow_start', { workflowId: 'bench-long', goal: `fresh ${i}` })).continueToken);
    const ids = (n) => Array.from({ length: n }, (_, i) => `rounds[${i}].work`);
    const early = [];
    const late = [];
    const nextEarly = [];
    const nextLate = [];
    const timed = async (samples, fn) => {
      const t0 = performance.now();
      const out = await fn();
      samples.push(performance.now() - t0);
      return out;
    };
    for (let i = 0; i < SAMPLES; i++) {
      await timed(early, () => call(wg, 'workflow_continue', { continueToken: fresh[i], output: { notesMarkdown: 'round 0' } }));
      token = (await timed(late, () => call(wg, 'workflow_continue', { continueToken: token, output: { notesMarkdown: `round ${STEPS + i}` } }))).continueToken;
      await timed(nextEarly, () => call(wg, 'workflow_next', { workflowId: 'bench-long', completedSteps: ids(1), context: {} }));
      await timed(nextLate, () => call(wg, 'workflow_next', { workflowId: 'bench-long', completedSteps: ids(STEPS), context: {} }));
    }
    const atStart = stats(early);
    const atEnd = stats(late);
    report('sessions', `workflow_continue median latency at step ${STEPS} vs step 1`, atEnd.median, atStart.median, 'ms', { samples: SAMPLES, interleaved: true, goal: 'ratio <= 1.2' });
    const nextStart = stats(nextEarly);
    const nextEnd = stats(nextLate);
    report('sessions', `workflow_next median latency at step ${STEPS} vs step 1 (same workflow, stateless)`, nextEnd.median, nextStart.median, 'ms', { samples: SAMPLES });
    report('sessions', 'workflow_continue median latency vs workflow_next, both at step 1', atStart.median, nextStart.median, 'ms', { note: 'continue appends and fsyncs the event log' });
  } finally {
    await wg.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Writes `n` sessions in the store's own format (log, snapshot, pinned workflow, index line), built with the store's
 * domain functions from dist — far faster than n tool calls, and what the server then reads is exactly what it writes.
 */
function seedSessions(dataDir, n) {
  const { foldSessionEvents, summarizeSession, stableStringify } = require(path.join(ROOT, 'dist/modules/workflow/domain/sessions'));
  const root = path.join(dataDir, 'sessions');
  fs.mkdirSync(root, { recursive: true });
  const text = stableStringify(workflow);
  const hash = require('node:crypto').createHash('sha256').update(text).digest('hex');
  const index = [];
  const words = ['parser', 'login', 'docs', 'cache', 'billing', 'search', 'upload', 'metrics'];
  for (let i = 0; i < n; i++) {
    const id = i.toString(16).padStart(16, '0');
    const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
    const started = {
      kind: 'session_started', at, sessionId: id, workflowId: 'bench-long', workflowVersion: '1.0.0', workflowHash: hash,
      goal: `fix the ${words[i % words.length]} bug #${i}`, workspacePath: `/work/repo-${i % 50}`, gitBranch: i % 2 ? 'main' : 'dev',
      context: {}, next: { completionId: 'rounds[0].work', stepId: 'work', title: 'Work' },
    };
    const line = `${JSON.stringify(started)}\n`;
    const state = foldSessionEvents(undefined, [started]);
    const dir = path.join(root, id);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'workflow.json'), text);
    fs.writeFileSync(path.join(dir, 'events.ndjson'), line);
    const tail = { bytes: Buffer.byteLength(line), sha256: require('node:crypto').createHash('sha256').update(line).digest('hex') };
    fs.writeFileSync(path.join(dir, 'snapshot.json'), JSON.stringify({ version: 2, logOffset: Buffer.byteLength(line), lines: 1, tail, state }));
    index.push(JSON.stringify({ s: summarizeSession(state) }));
  }
  fs.writeFileSync(path.join(root, 'index.ndjson'), `${index.join('\n')}\n`);
}

async function resumeBench() {
  const dir = tempDir('wg-bench-resume-');
  const wfDir = path.join(dir, 'workflows');
  fs.mkdirSync(wfDir);
  fs.writeFileSync(path.join(wfDir, 'bench-long.json'), JSON.stringify(workflow));
  const dataDir = path.join(dir, 'data');
  seedSessions(dataDir, SESSIONS);
  const wg = await workgraph(['--data-dir', dataDir, '--workflows', wfDir]);
  const echo = await echoServer();
  try {
    const queries = [{}, { workspacePath: '/work/repo-7', gitBranch: 'main' }, { query: 'login bug' }, { query: 'billing', workspacePath: '/work/repo-3' }];
    const t0 = performance.now();
    const first = await call(wg, 'workflow_resume', queries[0]);
    const firstMs = performance.now() - t0;
    if (first.candidates.length !== 5) throw new Error(`expected 5 candidates, got ${first.candidates.length}`);
    const samples = [];
    for (let i = 0; i < SAMPLES; i++) {
      const q = queries[i % queries.length];
      const t = performance.now();
      await call(wg, 'workflow_resume', q);
      samples.push(performance.now() - t);
    }
    const echoSamples = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t = performance.now();
      await echo.callTool({ name: 'echo', arguments: { reply: first } });
      echoSamples.push(performance.now() - t);
    }
    const resume = stats(samples);
    report('sessions', `workflow_resume median latency over ${SESSIONS} sessions`, resume.median, stats(echoSamples).median, 'ms', {
      goal: 'under 50 ms',
      p99: resume.p99,
      baselineIs: 'bare SDK echo of the same answer',
    });
    report('sessions', `workflow_resume first call over ${SESSIONS} sessions (reads the whole index)`, firstMs, stats(echoSamples).median, 'ms');
  } finally {
    await wg.close();
    await echo.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

(async () => {
  await continueBench();
  await resumeBench();
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
