// Memory soak: one server answers 100,000 tool calls through the SDK's real client — a mix of workflow_next,
// workflow_validate, list_nodes, get_ready_tasks and a graph tool (sum_to_n, so graph runs and their bounded store of
// recent runs are exercised too) with varying arguments — while its RSS is sampled from /proc/<pid>/status every
// 10,000 calls. The figure: RSS at 100k calls beside RSS at 10k (the warmed-up baseline); flat means ratio ≈ 1.
// Not part of `npm test`. Linux only (/proc). BENCH_SOAK_CALLS changes the call count (default 100,000).
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { ROOT, CLI, tempDir, cleanEnv, report } = require('./lib.js');

const CALLS = Number(process.env.BENCH_SOAK_CALLS || 100_000);
const SAMPLE_EVERY = Math.max(1, Math.floor(CALLS / 10));
/** Calls in flight at once: keeps the server busy without unbounded queues. */
const CONCURRENCY = 8;

function rssMb(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

async function main() {
  const dir = tempDir('wg-bench-soak-');
  const root = path.join(dir, 'root');
  fs.mkdirSync(root);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--data-dir', path.join(dir, 'data'), '--allow-root', root, '--graphs', path.join(ROOT, 'examples/graphs/sum_to_n.yaml')],
    env: cleanEnv(),
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-soak', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const pid = transport.pid;
  if (!pid) throw new Error('no server pid');

  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name} failed: ${r.content[0]?.text}`);
    return r.structuredContent;
  };

  // Fixtures: a task graph and a knowledge graph of 200 nodes.
  await call('init_project_graph', {
    projectName: 'soak',
    projectRoot: root,
    nodes: Array.from({ length: 20 }, (_, i) => ({ id: `t${i}`, title: `Task ${i}`, depends_on: i % 2 ? [`t${i - 1}`] : [] })),
  });
  const ctx = path.join(root, 'soak-app');
  for (let b = 0; b < 4; b++) {
    await call('add_nodes', {
      projectContext: ctx,
      nodes: Array.from({ length: 50 }, (_, i) => ({ thought: `thought ${b}-${i}\nbody`, role: i % 3 ? 'actor' : 'critic', tags: [`t${i % 5}`] })),
    });
  }
  const walk = ['reproduce', 'stabilise', 'locate'];

  const op = (i) => {
    switch (i % 5) {
      case 0:
        return call('workflow_next', { workflowId: 'fix-failing-test', completedSteps: walk.slice(0, i % 4), context: { failureKind: i % 2 ? 'flaky' : 'deterministic', n: i } });
      case 1:
        return call('workflow_validate', { workflowId: 'fix-failing-test', stepId: 'reproduce', output: `run ${i}: the test failed` });
      case 2:
        return call('list_nodes', { projectContext: ctx, limit: 1 + (i % 20), ...(i % 3 ? { tags: [`t${i % 5}`] } : {}) });
      case 3:
        return call('get_ready_tasks', { project: 'soak' });
      default:
        return call('sum_to_n', { n: 1 + (i % 50) });
    }
  };

  const samples = [];
  let next = 0;
  let done = 0;
  const started = Date.now();
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= CALLS) return;
      await op(i);
      done++;
      if (done % SAMPLE_EVERY === 0) samples.push({ calls: done, rssMb: Math.round(rssMb(pid) * 10) / 10 });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (Date.now() - started) / 1000;
  await client.close();
  fs.rmSync(dir, { recursive: true, force: true });

  const baseline = samples[0].rssMb;
  const last = samples[samples.length - 1].rssMb;
  const peak = Math.max(...samples.map((s) => s.rssMb));
  report('memory-soak', `server RSS after ${CALLS} calls (baseline: after ${SAMPLE_EVERY})`, last, baseline, 'MB', {
    peakMb: peak,
    calls: CALLS,
    seconds: Math.round(seconds),
    samples: samples.map((s) => `${s.calls}:${s.rssMb}`).join(' '),
    goal: 'flat (ratio close to 1)',
  });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
