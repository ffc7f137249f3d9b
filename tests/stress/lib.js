// Shared helpers of the stress scripts (`npm run stress`, not part of `npm test`): built servers driven by the SDK
// client, and the invariant checks of a data directory.
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const ROOT = path.resolve(__dirname, '../..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');

const { tempDir, cleanEnv } = require('../../bench/lib.js');

/** A built server on its own process, with an SDK client; `call` returns {ok, value | code, text}. */
async function startServer({ dataDir, allowRoot, name = 'stress' }) {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--data-dir', dataDir, ...(allowRoot ? ['--allow-root', allowRoot] : [])],
    env: cleanEnv(),
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr += d.toString()));
  const client = new Client({ name, version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const call = async (tool, args) => {
    const r = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: 120_000 });
    if (r.isError) return { ok: false, code: r._meta?.['workgraph/errorCode'], text: r.content[0]?.text };
    return { ok: true, value: r.structuredContent };
  };
  return { client, transport, call, pid: transport.pid, stderr: () => stderr, close: () => client.close() };
}

/**
 * Reads an NDJSON file strictly: every line must be JSON (a torn or malformed line is a failure here, though the
 * store itself would keep and report it).
 */
function readNdjson(file) {
  if (!fs.existsSync(file)) return [];
  const text = fs.readFileSync(file, 'utf8');
  if (text.length && !text.endsWith('\n')) throw new Error(`${file}: last line is not terminated (torn write)`);
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l, i) => {
      try {
        return JSON.parse(l);
      } catch {
        throw new Error(`${file}:${i + 1}: not JSON (torn or malformed line): ${l.slice(0, 120)}`);
      }
    });
}

/** Knowledge invariants: every line parses, no duplicate id, every parent exists. Returns the ids. */
function checkKnowledge(projectDir) {
  const nodes = readNdjson(path.join(projectDir, 'knowledge_graph.ndjson'));
  const ids = new Set();
  for (const n of nodes) {
    if (ids.has(n.id)) throw new Error(`duplicate knowledge node ${n.id}`);
    ids.add(n.id);
  }
  for (const n of nodes) for (const p of n.parents ?? []) if (!ids.has(p)) throw new Error(`node ${n.id} names missing parent ${p}`);
  const deleted = readNdjson(path.join(projectDir, 'knowledge_graph.deleted.ndjson'));
  const deletedIds = new Set();
  for (const d of deleted) {
    if (ids.has(d.nodeId)) throw new Error(`node ${d.nodeId} is both in the graph and in the deleted file`);
    if (deletedIds.has(d.nodeId)) throw new Error(`duplicate deleted record ${d.nodeId}`);
    deletedIds.add(d.nodeId);
  }
  return { ids, deletedIds };
}

/**
 * Task invariants: the graph file parses, and every node's status is reachable from its transition log (the log's
 * entries for the node chain — each `from` is the previous `to` — and end at the node's status).
 */
function checkTasks(projectDir) {
  const graph = JSON.parse(fs.readFileSync(path.join(projectDir, 'task_graph.json'), 'utf8'));
  const log = readNdjson(path.join(projectDir, 'transitions.ndjson'));
  const byNode = new Map();
  for (const t of log) byNode.set(t.node, [...(byNode.get(t.node) ?? []), t]);
  let transitions = 0;
  for (const node of graph.nodes) {
    const entries = byNode.get(node.id) ?? [];
    if (!entries.length) throw new Error(`task ${node.id} has no transition log entry`);
    let status = entries[0].to;
    for (const t of entries.slice(1)) {
      if (t.from !== status) throw new Error(`task ${node.id}: log jumps from ${status} to a transition from ${t.from} (${JSON.stringify(t)})`);
      status = t.to;
      transitions++;
    }
    if (status !== node.status) throw new Error(`task ${node.id} is ${node.status} but its log ends at ${status}`);
  }
  return { nodes: graph.nodes.length, transitions, revision: graph.revision };
}

function pick(xs) {
  return xs[Math.floor(Math.random() * xs.length)];
}

/**
 * Ends a stress script: prints its report as one JSON line; on failures prints them, keeps the data dir for
 * inspection and exits 1; otherwise removes the temp folder.
 */
function finish(report, failures, dir, dataDir) {
  console.log(JSON.stringify({ ...report, failures: failures.length }));
  if (failures.length) {
    console.error(failures.slice(0, 30).join('\n'));
    console.error(`data dir kept for inspection: ${dataDir}`);
    process.exit(1);
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

module.exports = { ROOT, CLI, tempDir, cleanEnv, startServer, readNdjson, checkKnowledge, checkTasks, pick, finish };
