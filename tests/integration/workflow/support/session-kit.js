// Builds the real session use cases over a data dir without the DI container, from a source folder: the TypeScript
// sources under jest, or a transpiled copy (transpile-src) in plain `node` child processes.
'use strict';
require('reflect-metadata');
const path = require('node:path');

function makeKit(srcDir, dataDir, workflows, maxBlockedAttempts = 3) {
  const r = (p) => require(path.join(srcDir, p));
  const { FileSessionStore } = r('modules/workflow/infrastructure/sessions/file-session-store');
  const { HmacSessionTokens } = r('modules/workflow/infrastructure/sessions/hmac-session-tokens');
  const { InMemoryWorkflowStorage } = r('modules/workflow/infrastructure/in-memory-workflow-storage');
  const { SessionEngine } = r('modules/workflow/application/services/session-engine');
  const { ConditionEvaluator } = r('modules/workflow/application/services/condition-evaluator');
  const { ValidationEngine } = r('modules/workflow/application/services/validation-engine');
  const { SchemaRegistry } = r('kernel/schema-registry');
  const { StartSession } = r('modules/workflow/application/use-cases/sessions/start-session');
  const { ContinueSession } = r('modules/workflow/application/use-cases/sessions/continue-session');
  const { PruneSessions } = r('modules/workflow/application/use-cases/sessions/prune-sessions');
  const { silentLogger } = r('kernel/logger');
  const sessionsDir = path.join(dataDir, 'sessions');
  const store = new FileSessionStore(sessionsDir, silentLogger);
  const tokens = new HmacSessionTokens(path.join(sessionsDir, 'token.key'));
  const conditions = new ConditionEvaluator();
  const config = { sessions: { maxBlockedAttempts, completedRetentionDays: 30 } };
  const engine = new SessionEngine(new InMemoryWorkflowStorage(workflows), store, tokens, conditions, new ValidationEngine(conditions, new SchemaRegistry()), config);
  const clock = { now: () => Date.now() };
  const prune = new PruneSessions(store, clock, config);
  return { store, tokens, engine, prune, start: new StartSession(engine, clock, prune, silentLogger), next: new ContinueSession(engine, clock) };
}

/** A workflow of one step repeated `count` times (a `for` loop), then a report that must say DONE. */
function longWorkflow(count) {
  return {
    id: 'long',
    name: 'Long',
    description: 'one step many times',
    version: '1.0.0',
    steps: [
      { id: 'rounds', type: 'loop', title: 'Rounds', loop: { type: 'for', count, maxIterations: count }, body: [{ id: 'work', title: 'Work', prompt: 'Do round {{i}}.' }] },
      { id: 'report', title: 'Report', prompt: 'Say DONE.', validationCriteria: [{ type: 'contains', value: 'DONE' }] },
    ],
  };
}

module.exports = { makeKit, longWorkflow };
