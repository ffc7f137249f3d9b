// Peak RSS of the built server while it builds a 100,000-node knowledge graph through add_nodes (batches of 500, as an
// agent would, parents among recent nodes) and then deletes in it (delete_nodes of leaves, each a streaming rebuild;
// one with recalculateSummaries; restore_nodes), read from the kernel's high-water mark (VmHWM in /proc/<pid>/status).
// Baseline in the same run: the peak of the same server after start and a few small calls (nothing stored). Goal
// (issue 9): under 150 MiB (measured 122-139 MiB, 1.23-1.42x idle, on a loaded 2-core machine; 150-167 MiB before
// findByIds decided on raw bytes and the readers reused their buffer). BENCH_KNOWLEDGE_RSS_NODES changes the node count.
// Linux only (/proc).
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { CLI, tempDir, cleanEnv, report } = require('./lib.js');

const NODES = Number(process.env.BENCH_KNOWLEDGE_RSS_NODES || 100_000);
const BATCH = 500;
const DELETES = 5;
const CTX = '/home/dev/work/rss-app';

function statusMb(pid, field) {
  const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

async function main() {
  const dir = tempDir('wg-bench-knowledge-rss-');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...(process.env.BENCH_SERVER_NODE_FLAGS ? process.env.BENCH_SERVER_NODE_FLAGS.split(' ') : []), CLI, 'serve', '--data-dir', path.join(dir, 'data')],
    env: cleanEnv(),
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-knowledge-rss', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const pid = transport.pid;
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
    if (r.isError) throw new Error(`${name} failed: ${r.content[0]?.text}`);
    return r.structuredContent;
  };
  try {
    // Baseline: started, modules loaded by small calls, nothing stored.
    await call('workflow_list', {});
    await call('list_nodes', { projectContext: '/home/dev/work/empty' });
    const idlePeak = statusMb(pid, 'VmHWM');

    const words = 'parser cache store retry backoff index query plan review split module test lock file stream append'.split(' ');
    const ids = [];
    const referenced = new Set();
    const t0 = Date.now();
    for (let b = 0; b * BATCH < NODES; b++) {
      const nodes = [];
      for (let i = 0; i < BATCH && b * BATCH + i < NODES; i++) {
        const n = b * BATCH + i;
        const id = `n${n}`;
        const parents = n > 0 ? [ids[n - 1 - ((n * 7919) % Math.min(n, 1000))]] : [];
        parents.forEach((p) => referenced.add(p));
        let thought = '';
        while (thought.length < 100) thought += `${words[(n + thought.length) % words.length]} `;
        const node = { id, thought: thought.trim() + '.', role: n % 10 === 9 ? 'critic' : 'actor', tags: [`t${n % 16}`], parents };
        if (n % 1000 === 999) Object.assign(node, { role: 'summary', summarizedSegment: [ids[n - 3], ids[n - 6]] }), referenced.add(ids[n - 3]);
        nodes.push(node);
        ids.push(id);
      }
      await call('add_nodes', { projectContext: CTX, nodes });
    }
    const buildMs = Date.now() - t0;
    const afterBuild = statusMb(pid, 'VmHWM');

    const leaves = ids.filter((id) => !referenced.has(id));
    const pick = (k) => leaves.slice(Math.floor((k * leaves.length) / (DELETES + 1)), Math.floor((k * leaves.length) / (DELETES + 1)) + 10);
    for (let k = 0; k < DELETES; k++) {
      const r = await call('delete_nodes', { projectContext: CTX, nodeIds: pick(k), reason: 'bench', recalculateSummaries: k === 0 });
      if (!r.success) throw new Error(`delete ${k} refused: ${r.message}`);
    }
    await call('restore_nodes', { projectContext: CTX, nodeIds: pick(0) });
    await call('list_nodes', { projectContext: CTX, limit: 50 });
    const peak = statusMb(pid, 'VmHWM');
    const extra = { nodes: NODES, batch: BATCH, deletes: DELETES, buildMs, afterBuildMb: Math.round(afterBuild * 10) / 10, goal: 'value < 150 MiB' };
    report('knowledge-server-rss', `server peak RSS building and deleting in a ${NODES}-node graph vs the idle server's peak`, peak, idlePeak, 'MiB', extra);
  } finally {
    await client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
