// One plan editor for the kill -9 test: edits project PROJECT in DATA_DIR in a loop through the real use cases
// (start_task, update_task, release_task: each a graph write with its history entry, some with transitions) until
// it is killed. Prints "ready" once loaded, then "acked REVISION ACTION" as each edit is answered (stdout to a pipe is
// written synchronously on Linux: a printed line is in the pipe before the next edit begins).
// Usage: node plan-editor.js DATA_DIR PROJECT
'use strict';
require('reflect-metadata');
require('./ts-register.js');
const path = require('node:path');
const src = path.join(__dirname, '..', '..', '..', '..', 'src');
const { StartTask } = require(path.join(src, 'modules/tasks/application/use-cases/start-task.ts'));
const { UpdateTask } = require(path.join(src, 'modules/tasks/application/use-cases/update-task.ts'));
const { ReleaseTask } = require(path.join(src, 'modules/tasks/application/use-cases/release-task.ts'));
const { PlanChanges } = require(path.join(src, 'modules/tasks/application/services/plan-changes.ts'));
const { FileTaskGraphStore } = require(path.join(src, 'modules/tasks/infrastructure/file-task-graph-store.ts'));
const { ProjectLayout } = require(path.join(src, 'kernel/files/project-layout.ts'));

const [dataDir, project] = process.argv.slice(2);
// The lock a killed editor left goes stale after 4 s instead of 10 (the next editor waits for it before its first
// edit); still well above a loaded machine's stalls, so a live editor's lock is never taken as stale.
const store = new FileTaskGraphStore(new ProjectLayout(dataDir), { staleMs: 4_000 });
const plan = new PlanChanges(store, { now: () => Date.now() }, 'editor-host');
const start = new StartTask(store, plan);
const update = new UpdateTask(store, plan);
const release = new ReleaseTask(store, plan);

function acked(answer, action) {
  process.stdout.write(`acked ${answer.revision} ${action}\n`);
}

(async () => {
  process.stdout.write('ready\n');
  for (let i = 0; ; i++) {
    const graph = await store.load(project);
    const a = graph.nodes.find((n) => n.id === 'a');
    if (a.status === 'READY') acked(await start.execute({ project, nodeId: 'a', agent: 'editor' }), 'start_task');
    else acked(await release.execute({ project, nodeId: 'a', agent: 'editor' }), 'release_task');
    // A title no earlier editor set: every update is a change, so every answered update is a revision.
    acked(await update.execute({ project, nodeId: 'b', title: `edit ${process.pid}.${i}`, agent: 'editor' }), 'update_task');
  }
})().catch((e) => {
  process.stderr.write(String(e && e.stack) + '\n');
  process.exit(1);
});
