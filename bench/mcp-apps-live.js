// MCP Apps live views (docs/mcp-apps.md "Live views"): what keeping a task DAG view live costs per poll. A view asks
// the app-only resource_changes tool every ~2 s and re-reads get_project_graph only when the DAG changed; this puts
// one unchanged poll beside one re-read of the same DAG, in the same run, through the built server over stdio (the SDK
// v2 client declaring the extension, as a host): the answer's bytes on the wire (text and structured content) and the
// round trip's time (medians of BENCH_LIVE_RUNS, default 30, interleaved). A 5,000-task DAG by default
// (BENCH_LIVE_LAYERS × 100 tasks, default 50).
const { performance } = require('node:perf_hooks');
const { CLI, tempDir, cleanEnv, stats, report } = require('./lib.js');

const RUNS = Number(process.env.BENCH_LIVE_RUNS || 30);
const LAYERS = Number(process.env.BENCH_LIVE_LAYERS || 50);
const WIDTH = 100;

/** bench/mcp-apps-render.js's DAG: layers of 100 tasks, each depending on one or two of the layer before. */
function layeredNodes(layers, width) {
  const nodes = [];
  for (let l = 0; l < layers; l++) {
    for (let i = 0; i < width; i++) {
      const deps = l === 0 ? [] : [`t${l - 1}-${i}`, ...(i + 1 < width && i % 3 === 0 ? [`t${l - 1}-${i + 1}`] : [])];
      nodes.push({ id: `t${l}-${i}`, title: `Task ${l}.${i}: implement part ${i} of stage ${l}`, depends_on: deps, validation_command: 'true' });
    }
  }
  return nodes;
}

async function main() {
  const { Client } = require('@modelcontextprotocol/client');
  const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
  const dataDir = tempDir('wg-bench-live-');
  const projectRoot = tempDir('wg-bench-live-root-');
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--allow-root', projectRoot], env: { ...cleanEnv(), WORKGRAPH_DATA_DIR: dataDir }, stderr: 'inherit' });
  const client = new Client({ name: 'bench-live-host', version: '1' }, { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } });
  await client.connect(transport);
  try {
    const call = async (name, args) => {
      const r = await client.callTool({ name, arguments: args }, { timeout: 120_000 });
      if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
      return r;
    };
    const init = await call('init_project_graph', { projectName: 'Live bench', projectRoot, nodes: layeredNodes(LAYERS, WIDTH) });
    const project = init.structuredContent.project_id;
    const uri = `workgraph://projects/${project}/tasks`;
    const poll = () => call('resource_changes', { resources: [uri] });
    const reread = () => call('get_project_graph', { project });
    // Warm both paths (the container, the log and its watch, the graph's first read).
    await poll();
    await reread();
    const pollMs = [];
    const rereadMs = [];
    let pollBytes = 0;
    let rereadBytes = 0;
    for (let i = 0; i < RUNS; i++) {
      let t = performance.now();
      const p = await poll();
      pollMs.push(performance.now() - t);
      t = performance.now();
      const g = await reread();
      rereadMs.push(performance.now() - t);
      pollBytes = JSON.stringify(p).length;
      rereadBytes = JSON.stringify(g).length;
      if (p.structuredContent.resources[0].changedAt !== null) throw new Error('the DAG changed during the bench: the poll is not the unchanged one');
    }
    const tasks = LAYERS * WIDTH;
    report('mcp-apps-live', `unchanged poll vs re-read, ${tasks} tasks: bytes`, pollBytes, rereadBytes, 'bytes');
    report('mcp-apps-live', `unchanged poll vs re-read, ${tasks} tasks: round trip (median of ${RUNS})`, stats(pollMs).median, stats(rereadMs).median, 'ms');
  } finally {
    await client.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
