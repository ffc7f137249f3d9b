// Graph engine: the mcpgraph loop example (examples/graphs/sum_to_n.yaml) through the library API, beside a FLOOR that
// evaluates the same JSONata and JSON Logic — compiled from the same file by the same loader, with the same
// per-evaluation history bindings, but WITHOUT jsonata's time/depth guardrails (expression limits 0) — in a bare loop
// over a minimal incremental history. The floor is "the expressions and nothing else": no records, no limits, no
// time/depth hooks, no yielding; the engine keeps all of them, so the ratio includes what the limits cost.
//
// Goal (DESIGN.md §4): engine cost per iteration within 1.25x of the floor at every n, and flat across n (linear).
// Each n prints one line: value = engine ms per iteration (best round), baseline = floor ms per iteration (best round),
// with the CPU-time ratio and the median of the per-round ratios beside them (both steadier on a busy machine).
// n defaults to 1,000 / 10,000 / 100,000; override with BENCH_GRAPH_NS=1000,5000. Each timing runs the tool
// ceil(10,000 / n) times back to back (so short runs are not lost in the noise of a shared machine) and is divided
// back to one run. Rounds per n: BENCH_GRAPH_ROUNDS (default 7 up to n = 10,000, 3 above), engine and floor
// alternating; the best round of each is reported.
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { ROOT, report } = require('./lib.js');
const { loadGraph } = require(path.join(ROOT, 'dist', 'index.js'));

const NS = (process.env.BENCH_GRAPH_NS || '1000,10000,100000').split(',').map((s) => Number(s.trim()));
const GRAPH_FILE = path.join(ROOT, 'examples', 'graphs', 'sum_to_n.yaml');

/**
 * The history the floor keeps: the latest output per node (the `$` context, updated in place), every output in order
 * (for $previousNode) and per-node output lists (for $executionCount/$nodeExecution/$nodeExecutions). The bindings have
 * the engine's semantics (missing → null).
 */
function floorHistory() {
  const context = Object.create(null);
  const outputs = [];
  const byNode = new Map();
  const add = (nodeId, output) => {
    outputs.push(output);
    let list = byNode.get(nodeId);
    if (!list) byNode.set(nodeId, (list = []));
    list.push(output);
    context[nodeId] = output;
  };
  const bindings = {
    previousNode: (n) => {
      const k = typeof n === 'number' ? n : 1;
      const v = outputs[outputs.length - k];
      return k >= 1 && v !== undefined ? v : null;
    },
    executionCount: (id) => byNode.get(id)?.length ?? 0,
    nodeExecution: (id, i) => {
      const list = byNode.get(id);
      if (!list || !Number.isInteger(i)) return null;
      const at = i < 0 ? list.length + i : i;
      return at >= 0 && at < list.length ? list[at] : null;
    },
    nodeExecutions: (id) => byNode.get(id)?.slice() ?? [],
  };
  return { context, add, bindings };
}

/** The compiled expressions of sum_to_n as the loaded graph holds them (compiled once, shared with the engine). */
function compiledExpressions(host) {
  const tool = host.graphs()[0].tools.get('sum_to_n');
  const increment = tool.nodes.get('increment_node');
  const check = tool.nodes.get('check_condition');
  const exit = tool.nodes.get('exit_sum');
  if (increment.kind !== 'transform' || check.kind !== 'switch' || exit.kind !== 'transform') {
    throw new Error('sum_to_n.yaml no longer has the expected node kinds');
  }
  return { increment: increment.expr, branches: check.branches, exit: exit.expr };
}

/** The sum_to_n loop with nothing but its expressions: entry, (increment, check)*, exit_sum. */
async function floorRun(exprs, n) {
  const h = floorHistory();
  h.add('entry_sum', { n });
  let next = 'increment_node';
  while (next === 'increment_node') {
    h.add('increment_node', await exprs.increment.evaluate(h.context, h.bindings));
    next = undefined;
    for (const b of exprs.branches) {
      if (b.rule === undefined || (await b.rule.evaluate(h.context, h.bindings))) {
        next = b.target;
        break;
      }
    }
    h.add('check_condition', next);
  }
  const out = await exprs.exit.evaluate(h.context, h.bindings);
  return JSON.parse(JSON.stringify(out));
}

async function engineRun(host, n) {
  const { result } = await host.executeTool('sum_to_n', { n }).promise;
  return result;
}

/**
 * Wall time and CPU time (user + system, all threads of this process) of one run. The CPU time hardly moves when other
 * processes compete for the cores, so it is reported beside the wall time as a check on a busy machine.
 */
async function timed(fn, n, reps) {
  if (global.gc) global.gc();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let result;
  for (let i = 0; i < reps; i++) result = await fn();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  const expected = (n * (n + 1)) / 2;
  if (!result || result.sum !== expected) throw new Error(`wrong result at n=${n}: ${JSON.stringify(result)} (expected sum ${expected})`);
  return { ms: ms / reps, cpuMs: (c.user + c.system) / 1000 / reps };
}

function best(a, b) {
  return { ms: Math.min(a.ms, b.ms), cpuMs: Math.min(a.cpuMs, b.cpuMs) };
}

function round1(x) {
  return Math.round(x * 10) / 10;
}

async function main() {
  // Keep every run of the host inspectable costs memory only; one kept run is enough here.
  const host = await loadGraph(GRAPH_FILE, { recentRunLimit: 1 });
  // The floor's copy of the expressions: limits 0 turn jsonata's per-step guardrails (clock and depth) off.
  const floorHost = await loadGraph(GRAPH_FILE, { recentRunLimit: 1, expressionLimits: { timeoutMs: 0, stackDepth: 0 } });
  const exprs = compiledExpressions(floorHost);

  // Warm up both paths (JIT, jsonata's lazy parts) before measuring anything.
  for (let i = 0; i < 5; i++) {
    await engineRun(host, 2_000);
    await floorRun(exprs, 2_000);
  }

  const perIteration = [];
  for (const n of NS) {
    const rounds = Number(process.env.BENCH_GRAPH_ROUNDS || (n <= 10_000 ? 7 : 3));
    const reps = Math.max(1, Math.ceil(10_000 / n));
    let e = { ms: Infinity, cpuMs: Infinity };
    let f = { ms: Infinity, cpuMs: Infinity };
    // Each round's engine/floor ratio: their median is a second, load-robust view of the same comparison.
    const paired = [];
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first so drift of the machine hits both alike.
      let er;
      let fr;
      if (r % 2 === 0) {
        er = await timed(() => engineRun(host, n), n, reps);
        fr = await timed(() => floorRun(exprs, n), n, reps);
      } else {
        fr = await timed(() => floorRun(exprs, n), n, reps);
        er = await timed(() => engineRun(host, n), n, reps);
      }
      e = best(e, er);
      f = best(f, fr);
      paired.push(er.ms / fr.ms);
    }
    paired.sort((a, b) => a - b);
    perIteration.push({ n, engine: e.ms / n, floor: f.ms / n });
    report('graph-sum-to-n', `sum_to_n n=${n} ms per iteration`, e.ms / n, f.ms / n, 'ms', {
      n,
      engineTotalMs: round1(e.ms),
      floorTotalMs: round1(f.ms),
      engineUsPerIteration: round1((e.ms / n) * 1000),
      floorUsPerIteration: round1((f.ms / n) * 1000),
      engineCpuMs: round1(e.cpuMs),
      floorCpuMs: round1(f.cpuMs),
      cpuRatio: Math.round((e.cpuMs / f.cpuMs) * 1000) / 1000,
      pairedMedianRatio: Math.round(paired[paired.length >> 1] * 1000) / 1000,
      rounds,
      runsPerRound: reps,
      goal: 'ratio <= 1.25',
    });
  }
  if (perIteration.length > 1) {
    // Flatness: cost per iteration at the largest n against the smallest (1.0 = perfectly linear total time).
    const first = perIteration[0];
    const last = perIteration[perIteration.length - 1];
    report('graph-sum-to-n', `engine ms per iteration, n=${last.n} vs n=${first.n}`, last.engine, first.engine, 'ms', {
      floorRatio: Math.round((last.floor / first.floor) * 1000) / 1000,
      goal: 'flat (ratio near 1, as the floor)',
    });
  }
  await host.close();
  await floorHost.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
