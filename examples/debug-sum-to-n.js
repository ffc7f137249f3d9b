// Debugging the sum_to_n graph with workgraph's library API: a breakpoint, a step, inspecting the live context, a
// conditional breakpoint, time travel on the finished run, telemetry, and stopping a run.
// Run it from a checkout after `npm run build`:   node examples/debug-sum-to-n.js
const path = require('node:path');
const { loadGraph } = require('../dist'); // in your own project: require('workgraph')

async function main() {
  const host = await loadGraph(path.join(__dirname, 'graphs', 'sum_to_n.yaml'));

  // onPause fires each time the run stops before a node; `paused()` waits for the next one.
  let wakeOnPause;
  const paused = () => new Promise((resolve) => (wakeOnPause = resolve));
  const firstPause = paused();

  const { executionId, promise, controller } = host.executeTool('sum_to_n', { n: 3 }, {
    breakpoints: ['check_condition'], // pause before every run of this node
    telemetry: true,
    hooks: {
      onPause: (executionIndex, nodeId) => {
        console.log(`paused before #${executionIndex} ${nodeId}`);
        wakeOnPause?.({ executionIndex, nodeId });
      },
      onNodeComplete: (executionIndex, nodeId, node, input, output) =>
        console.log(`  ran #${executionIndex} ${nodeId} (${node.type}) -> ${JSON.stringify(output)}`),
    },
  });

  await firstPause;
  // While paused, the state shows where the run is and the context the next node will see.
  const state = controller.getState();
  console.log(`status ${state.status} at ${state.currentNodeId}; context.increment_node = ${JSON.stringify(state.context.increment_node)}`);

  // Run exactly one node (check_condition), then pause again before the next one.
  await controller.step();
  console.log('after step: at', controller.getState().currentNodeId);

  // Move the breakpoint to the exit, and go on.
  controller.setBreakpoints(['exit_sum']);
  const atExit = paused();
  controller.resume();
  await atExit;
  controller.clearBreakpoints();
  controller.resume();

  const { result, history, telemetry } = await promise;
  console.log(`result ${JSON.stringify(result)} after ${history.length} node executions`);
  console.log('increment_node ran', telemetry.byNodeId.increment_node.count, 'times');

  // Time travel on the finished run: what did node #5 see? (No expression is re-run.)
  const record = host.getExecutionByIndex(executionId, 5);
  const seen = host.getContextForExecution(executionId, 5);
  console.log(`#5 ${record.nodeId} saw increment_node = ${JSON.stringify(seen.increment_node)}, output ${JSON.stringify(record.output)}`);

  // A conditional breakpoint: onNodeStart returning false pauses before that node. Then stop the run there.
  const second = host.executeTool('sum_to_n', { n: 1000 }, {
    hooks: {
      onNodeStart: (i, nodeId, node, context) => !(nodeId === 'check_condition' && context.increment_node.counter === 500),
      onPause: () => second.controller.stop(),
    },
  });
  try {
    await second.promise;
  } catch (err) {
    const s = second.controller.getState();
    console.log(`second run: ${err.code} (${s.status}) with increment_node.counter = ${s.context.increment_node.counter}`);
  }
  await host.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
