// SIGKILL of a server at random moments during knowledge rebuilds (delete_nodes, restore_nodes) and task writes
// (start, validate, reset), repeated. After every kill the data directory is checked — every line parses, no
// duplicate, the knowledge graph is the state before or after the operation in flight, every task status is
// reachable from its transition log — and a fresh server must load it and serve the next round.
//
// Environment: STRESS_KILLS (default 12), STRESS_NODES (knowledge graph size, default 5,000).
const fs = require('node:fs');
const path = require('node:path');
const { tempDir, startServer, checkKnowledge, checkTasks, pick, finish } = require('./lib.js');

const KILLS = Number(process.env.STRESS_KILLS || 12);
const NODES = Number(process.env.STRESS_NODES || 5_000);
const CTX = '/work/crash-app';

const sameSet = (a, b) => a.size === b.size && [...a].every((x) => b.has(x));

async function main() {
  const dir = tempDir('wg-crash-');
  const dataDir = path.join(dir, 'data');
  const root = path.join(dir, 'root');
  fs.mkdirSync(root);
  const knowledgeDir = path.join(dataDir, 'projects', 'crash-app');
  const tasksDir = path.join(dataDir, 'projects', 'crash');

  // Seed: a knowledge graph of NODES parentless nodes and a task graph.
  let server = await startServer({ dataDir, allowRoot: root });
  for (let i = 0; i < NODES; i += 1000) {
    const nodes = Array.from({ length: Math.min(1000, NODES - i) }, (_, k) => ({ id: `n${i + k}`, thought: `thought ${i + k} `.repeat(8), role: 'actor', tags: ['seed'] }));
    const r = await server.call('add_nodes', { projectContext: CTX, nodes });
    if (!r.ok) throw new Error(`seed failed: ${r.text}`);
  }
  const tasks = Array.from({ length: 8 }, (_, i) => ({ id: `t${i}`, title: `Task ${i}`, depends_on: i >= 4 ? [`t${i - 4}`] : [], validation_command: 'true', max_attempts: 100 }));
  const init = await server.call('init_project_graph', { projectName: 'crash', projectRoot: root, nodes: tasks });
  if (!init.ok) throw new Error(`init failed: ${init.text}`);
  await server.close();

  let present = checkKnowledge(knowledgeDir).ids;
  let deleted = new Set();
  const report = { kills: 0, killedDuringKnowledge: 0, killedDuringTasks: 0, operations: 0, reloads: 0, outcomes: { old: 0, new: 0 } };
  const failures = [];

  for (let round = 0; round < KILLS; round++) {
    server = await startServer({ dataDir, allowRoot: root });
    // The data dir must load: both modules answer.
    const listed = await server.call('list_nodes', { projectContext: CTX, limit: 5 });
    const graph = await server.call('get_project_graph', { project: 'crash' });
    if (!listed.ok || !graph.ok) failures.push(`round ${round}: data dir did not load: ${listed.text ?? ''} ${graph.text ?? ''}`);
    if (listed.ok && listed.value.malformedLines) failures.push(`round ${round}: ${listed.value.malformedLines} malformed knowledge lines`);
    report.reloads++;

    // Operations one at a time, so at the kill at most one is in flight: its before and after states are known.
    const killAt = Date.now() + 50 + Math.random() * 1500;
    let inflight = null;
    let killed = false;
    const loop = (async () => {
      while (!killed) {
        if (Math.random() < 0.6) {
          const restore = deleted.size > 0 && Math.random() < 0.4;
          const ids = restore ? [...deleted].slice(0, 1 + Math.floor(Math.random() * 20)) : Array.from({ length: 1 + Math.floor(Math.random() * 20) }, () => pick([...present]));
          const unique = [...new Set(ids)];
          inflight = { kind: 'knowledge', restore, ids: unique };
          const r = await server.call(restore ? 'restore_nodes' : 'delete_nodes', { projectContext: CTX, nodeIds: unique, ...(restore ? {} : { reason: 'crash test' }) }).catch(() => null);
          if (killed || r === null) return;
          if (!r.ok || (!restore && !r.value.success)) failures.push(`round ${round}: ${restore ? 'restore' : 'delete'} failed: ${r.text ?? JSON.stringify(r.value).slice(0, 200)}`);
          else if (restore) for (const id of r.value.restoredNodeIds) deleted.delete(id), present.add(id);
          else for (const id of r.value.deletedNodeIds) present.delete(id), deleted.add(id);
        } else {
          const [tool] = pick([['start_task'], ['validate_task_loop'], ['reset_task_node']]);
          inflight = { kind: 'tasks' };
          const r = await server.call(tool, { project: 'crash', nodeId: pick(tasks).id }).catch(() => null);
          if (killed || r === null) return;
          if (!r.ok && !['invalid_transition', 'conflict', 'has_dependents'].includes(r.code)) failures.push(`round ${round}: ${tool}: ${r.text}`);
        }
        report.operations++;
        inflight = null;
      }
    })();
    while (Date.now() < killAt) await new Promise((r) => setTimeout(r, 10));
    const during = inflight;
    killed = true;
    process.kill(server.pid, 'SIGKILL');
    await loop;
    await server.close().catch(() => undefined);
    report.kills++;
    if (during?.kind === 'knowledge') report.killedDuringKnowledge++;
    if (during?.kind === 'tasks') report.killedDuringTasks++;

    // ---- the data dir after the kill ------------------------------------------------------------------------
    let facts;
    try {
      facts = checkKnowledge(knowledgeDir);
      checkTasks(tasksDir);
    } catch (e) {
      failures.push(`round ${round} (killed during ${during?.kind ?? 'nothing'}): ${e.message}`);
      break;
    }
    if (sameSet(facts.ids, present)) report.outcomes.old++;
    else if (during?.kind === 'knowledge') {
      const after = new Set(present);
      for (const id of during.ids) during.restore ? after.add(id) : after.delete(id);
      if (sameSet(facts.ids, after)) {
        report.outcomes.new++;
        present = after;
        for (const id of during.ids) during.restore ? deleted.delete(id) : deleted.add(id);
      } else failures.push(`round ${round}: knowledge graph is neither the state before nor after the ${during.restore ? 'restore' : 'delete'} in flight (${facts.ids.size} nodes; expected ${present.size} or ${after.size})`);
    } else failures.push(`round ${round}: knowledge graph changed (${facts.ids.size} nodes, expected ${present.size}) though no knowledge operation was in flight`);
    if (!sameSet(facts.deletedIds, deleted)) failures.push(`round ${round}: deleted records (${facts.deletedIds.size}) differ from the deleted nodes (${deleted.size})`);
    if (failures.length) break;
  }

  finish({ stress: 'crash', nodes: NODES, ...report }, failures, dir, dataDir);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
