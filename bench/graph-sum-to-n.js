// Graph engine: the mcpgraph loop example (examples/graphs/sum_to_n.yaml) through the library API, beside a FLOOR that
// evaluates exactly the same compiled expressions — taken from the loaded graph, so the same JSONata options (time and
// stack limits) and the same per-evaluation history bindings — in a bare loop over a minimal incremental history.
// The floor is "the expressions and nothing else": no records, no limits, no hooks, no yielding.
//
// Goal (DESIGN.md §4): engine cost per iteration within 1.25x of the floor at every n, and flat across n (linear).
// n defaults to 1,000 / 10,000 / 100,000; override with BENCH_GRAPH_NS=1000,5000. Rounds per n: BENCH_GRAPH_ROUNDS
// (default 15 up to n = 1,000, 7 up to 10,000, 3 above: short runs need more rounds to find a quiet moment on a shared
// machine), engine and floor alternating; the best round of each is reported.
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { ROOT, report } = require('./lib');
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

async function timed(fn, n) {
  if (global.gc) global.gc();
  const t0 = performance.now();
  const result = await fn();
  const ms = performance.now() - t0;
  const expected = (n * (n + 1)) / 2;
  if (!result || result.sum !== expected) throw new Error(`wrong result at n=${n}: ${JSON.stringify(result)} (expected sum ${expected})`);
  return ms;
}

async function main() {
  // Keep every run of the host inspectable costs memory only; one kept run is enough here.
  const host = await loadGraph(GRAPH_FILE, { recentRunLimit: 1 });
  const exprs = compiledExpressions(host);

  // Warm up both paths (JIT, jsonata's lazy parts) before measuring anything.
  for (let i = 0; i < 5; i++) {
    await engineRun(host, 2_000);
    await floorRun(exprs, 2_000);
  }

  const perIteration = [];
  for (const n of NS) {
    const rounds = Number(process.env.BENCH_GRAPH_ROUNDS || (n <= 1_000 ? 15 : n <= 10_000 ? 7 : 3));
    let engine = Infinity;
    let floor = Infinity;
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first so drift of the machine hits both alike.
      if (r % 2 === 0) {
        engine = Math.min(engine, await timed(() => engineRun(host, n), n));
        floor = Math.min(floor, await timed(() => floorRun(exprs, n), n));
      } else {
        floor = Math.min(floor, await timed(() => floorRun(exprs, n), n));
        engine = Math.min(engine, await timed(() => engineRun(host, n), n));
      }
    }
    perIteration.push({ n, engine: engine / n, floor: floor / n });
    report('graph-sum-to-n', `sum_to_n n=${n} ms per iteration`, engine / n, floor / n, 'ms', {
      n,
      engineTotalMs: Math.round(engine * 10) / 10,
      floorTotalMs: Math.round(floor * 10) / 10,
      engineUsPerIteration: Math.round((engine / n) * 1e4) / 10,
      rounds,
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
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
