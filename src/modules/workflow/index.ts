/**
 * The workflow module's public face: the only file code outside the module imports (docs/architecture.md). It stays
 * light — tokens, tool declarations, types and a lazy registration — so a server answers `tools/list` without loading
 * the module; what else outside code needs at run time comes through `workflowRuntime()`.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { ModuleRegistration } from '../../kernel/module-registration';

export { WorkflowTokens } from './application/workflow.tokens';
export { workflowTools } from './workflow.tools';
export type { WorkflowStorage, WorkflowListing } from './application/ports/workflow-storage';
export type { ValidateWorkflowJson } from './application/use-cases/validate-workflow-json';
export type { ListSessionsOutput } from './application/use-cases/sessions/list-sessions';
export type { PruneSessionsOutput } from './application/use-cases/sessions/prune-sessions';
export type { SessionTimeline } from './application/use-cases/sessions/get-session-timeline';
export type { SessionStore } from './application/ports/session-store';
export type { ContractRule } from './application/ports/contract-rules';

/** The workflow module's PostgreSQL schema migrations (loaded when a database is migrated, not at start). */
export function workflowDatabaseMigrations(): import('../../kernel/postgres/migrations').Migration[] {
  return (require('./infrastructure/postgres/sessions-migrations') as typeof import('./infrastructure/postgres/sessions-migrations')).workflowMigrations;
}

/** Registers the workflow module (its wiring is loaded on the first call). */
export const registerWorkflowModule: ModuleRegistration = (container, config) =>
  (require('./workflow.module') as typeof import('./workflow.module')).workflowModule(container, config);

/** The module's run-time helpers for outside code (the CLI's `validate`), loaded on first use. */
export function workflowRuntime(): typeof import('./workflow.runtime') {
  return require('./workflow.runtime') as typeof import('./workflow.runtime');
}

/**
 * Refuses a data dir whose `sessions/token.key` is empty or short (tokens signed with it could be forged) unless no
 * session exists yet — then the key is replaced. `workgraph serve` calls it before it starts (file sessions only). The
 * usual case reads one small file; the adapter code loads only for a bad key (cold start stays light).
 */
export async function checkSessionTokenKey(dataDir: string): Promise<'ok' | 'missing' | 'replaced'> {
  const sessionsDir = path.join(dataDir, 'sessions');
  const size = await fs.stat(path.join(sessionsDir, 'token.key')).then((s) => s.size, (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? -1 : 0));
  if (size < 0) return 'missing';
  if (size >= 32) return 'ok';
  const { checkSessionTokenKey: check } = require('./infrastructure/sessions/token-key-check') as typeof import('./infrastructure/sessions/token-key-check');
  return check(sessionsDir);
}
