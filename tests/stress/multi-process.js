// Several server processes sharing one data directory under load for a bounded time: knowledge adds, deletes (with
// the dependents confirmation) and restores, and task transitions (start, validate, reset) racing on one task graph.
// Afterwards every invariant is checked against what the clients were told: no lost node, no duplicate, no torn line,
// every deleted node in the deleted file, every task status reachable from its transition log.
//
// Environment: STRESS_PROCESSES (default 4), STRESS_SECONDS (default 20).
const fs = require('node:fs');
const path = require('node:path');
const { tempDir, startServer, checkKnowledge, checkTasks, pick, finish } = require('./lib.js');

const PROCESSES = Number(process.env.STRESS_PROCESSES || 4);
const SECONDS = Number(process.env.STRESS_SECONDS || 20);
/** Error codes a racing call may legitimately get; anything else is a failure. */
const EXPECTED_TASK_ERRORS = new Set(['invalid_transition', 'conflict', 'has_dependents']);

async function main() {
  const dir = tempDir('wg-stress-');
  const dataDir = path.join(dir, 'data');
  const root = path.join(dir, 'root');
  fs.mkdirSync(root);
  const servers = [];
  for (let i = 0; i < PROCESSES; i++) servers.push(await startServer({ dataDir, allowRoot: root, name: `stress-${i}` }));

  const tasks = Array.from({ length: 12 }, (_, i) => ({
    id: `t${i}`,
    title: `Task ${i}`,
    depends_on: i >= 4 ? [`t${i - 4}`] : [],
    validation_command: i % 3 === 0 ? 'exit $((RANDOM % 2))' : 'true',
    max_attempts: 100,
  }));
  const init = await servers[0].call('init_project_graph', { projectName: 'stress', projectRoot: root, nodes: tasks });
  if (!init.ok) throw new Error(`init failed: ${init.text}`);

  const ctx = '/work/stress-app';
  const counts = { add: 0, delete: 0, deleteConfirmed: 0, restore: 0, start: 0, validate: 0, reset: 0, refused: 0 };
  const failures = [];
  const deadline = Date.now() + SECONDS * 1000;

  const worker = async (server, w) => {
    // What this worker was told: its own nodes only (parents are always its own, so no other worker deletes them).
    const present = new Set();
    const deleted = new Set();
    let seq = 0;
    while (Date.now() < deadline) {
      const r = Math.random();
      if (r < 0.35) {
        const parents = present.size && Math.random() < 0.7 ? [pick([...present])] : [];
        const nodes = Array.from({ length: 1 + Math.floor(Math.random() * 3) }, () => ({ id: `w${w}n${seq++}`, thought: `worker ${w} thought ${seq}`, role: 'actor', parents }));
        const res = await server.call('add_nodes', { projectContext: ctx, nodes });
        if (!res.ok) failures.push(`add_nodes: ${res.text}`);
        else for (const n of nodes) present.add(n.id), counts.add++;
      } else if (r < 0.5 && present.size) {
        const id = pick([...present]);
        let res = await server.call('delete_nodes', { projectContext: ctx, nodeIds: [id], reason: 'stress' });
        if (res.ok && !res.value.success) {
          // Confirm with the dependents included (all this worker's own nodes).
          res = await server.call('delete_nodes', { projectContext: ctx, nodeIds: [id, ...res.value.dependentNodes.map((d) => d.nodeId)], reason: 'stress' });
          counts.deleteConfirmed++;
        }
        if (!res.ok) failures.push(`delete_nodes: ${res.text}`);
        else if (!res.value.success) failures.push(`delete_nodes with dependents included still refused: ${JSON.stringify(res.value.dependentNodes.map((d) => d.nodeId))}`);
        else for (const d of res.value.deletedNodeIds) present.delete(d), deleted.add(d), counts.delete++;
      } else if (r < 0.6 && deleted.size) {
        const ids = [...deleted].slice(0, 1 + Math.floor(Math.random() * 3));
        const res = await server.call('restore_nodes', { projectContext: ctx, nodeIds: ids });
        if (!res.ok) failures.push(`restore_nodes: ${res.text}`);
        else for (const id of res.value.restoredNodeIds) deleted.delete(id), present.add(id), counts.restore++;
      } else {
        const nodeId = pick(tasks).id;
        const [tool, key] = pick([['start_task', 'start'], ['validate_task_loop', 'validate'], ['reset_task_node', 'reset']]);
        const res = await server.call(tool, { project: 'stress', nodeId, ...(tool === 'validate_task_loop' ? { waitSeconds: 30 } : {}) });
        if (res.ok) counts[key]++;
        else if (EXPECTED_TASK_ERRORS.has(res.code)) counts.refused++;
        else failures.push(`${tool} ${nodeId}: ${res.text}`);
      }
    }
    return { present, deleted };
  };

  const started = Date.now();
  const ledgers = await Promise.all(servers.map((s, w) => worker(s, w)));
  const seconds = (Date.now() - started) / 1000;
  await Promise.all(servers.map((s) => s.close()));

  // ---- invariants --------------------------------------------------------------------------------------------
  const projectDir = path.join(dataDir, 'projects', 'stress-app');
  const { ids, deletedIds } = checkKnowledge(projectDir);
  const expectPresent = new Set(ledgers.flatMap((l) => [...l.present]));
  const expectDeleted = new Set(ledgers.flatMap((l) => [...l.deleted]));
  for (const id of expectPresent) if (!ids.has(id)) failures.push(`lost node ${id} (added, never deleted)`);
  for (const id of ids) if (!expectPresent.has(id)) failures.push(`node ${id} is in the graph but the client was told it was deleted`);
  for (const id of expectDeleted) if (!deletedIds.has(id)) failures.push(`deleted node ${id} has no deleted record`);
  for (const id of deletedIds) if (!expectDeleted.has(id)) failures.push(`deleted record ${id} the client never deleted (or restored)`);
  const taskFacts = checkTasks(path.join(dataDir, 'projects', 'stress'));

  const ops = Object.values(counts).reduce((a, b) => a + b, 0);
  finish(
    {
      stress: 'multi-process',
      processes: PROCESSES,
      seconds: Math.round(seconds),
      operations: ops,
      counts,
      knowledgeNodes: ids.size,
      deletedRecords: deletedIds.size,
      taskTransitions: taskFacts.transitions,
      taskGraphRevision: taskFacts.revision,
    },
    failures,
    dir,
    dataDir,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
