// One racer: waits until the agreed start time, calls the real StartTask use case against the shared data dir, and
// prints one JSON line: {ok: true} or {ok: false, code, message}.
// Usage: node start-task-racer.js DATA_DIR PROJECT NODE START_AT_MS
'use strict';
require('reflect-metadata');
require('./ts-register.js');
const path = require('node:path');
const src = path.join(__dirname, '..', '..', '..', '..', 'src');
const { StartTask } = require(path.join(src, 'modules/tasks/application/use-cases/start-task.ts'));
const { FileTaskGraphStore } = require(path.join(src, 'modules/tasks/infrastructure/file-task-graph-store.ts'));
const { ProjectLayout } = require(path.join(src, 'kernel/files/project-layout.ts'));

const [dataDir, project, nodeId, startAt] = process.argv.slice(2);
const { PlanChanges } = require(path.join(src, 'modules/tasks/application/services/plan-changes.ts'));
const store = new FileTaskGraphStore(new ProjectLayout(dataDir));
const useCase = new StartTask(store, new PlanChanges(store, { now: () => Date.now() }, 'racer-host'));

setTimeout(async () => {
  try {
    await useCase.execute({ project, nodeId });
    process.stdout.write(JSON.stringify({ ok: true }) + '\n');
  } catch (e) {
    process.stdout.write(JSON.stringify({ ok: false, code: e.code, message: e.message }) + '\n');
  }
}, Math.max(0, Number(startAt) - Date.now()));
