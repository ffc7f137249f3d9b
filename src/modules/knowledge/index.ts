/**
 * The knowledge module's public face: the only file code outside the module imports (docs/architecture.md). Light:
 * tokens, tool declarations, types and a lazy registration.
 */
import type { ModuleRegistration } from '../../kernel/module-registration';
import type { MigrationStep } from '../../kernel/files/data-format';

export { KnowledgeTokens } from './application/knowledge.tokens';
export { knowledgeTools } from './knowledge.tools';
export type { KnowledgeStore, KnowledgeBackupInfo, KnowledgeProjectInfo } from './application/ports/knowledge-store';
export type { RestoreKnowledgeBackupOutput } from './application/use-cases/restore-knowledge-backup';
export type { SearchNodesInput, SearchNodesOutput } from './application/use-cases/search-nodes';
export type { KnowledgeOverview } from './application/use-cases/get-knowledge-overview';
export type { GetNodeOutput } from './application/use-cases/get-node';
export type { KnowledgeNode } from './domain';

/** The knowledge module's PostgreSQL schema migrations (loaded when a database is migrated, not at start). */
export function knowledgeDatabaseMigrations(): import('../../kernel/postgres/migrations').Migration[] {
  return (require('./infrastructure/postgres/knowledge-migrations') as typeof import('./infrastructure/postgres/knowledge-migrations')).knowledgeMigrations;
}

type CopyKnowledgeProject = typeof import('./application/services/copy-knowledge-project').copyKnowledgeProject;
/** Copies one project's knowledge graph between two stores (`workgraph db import/export`; loaded on first use). */
export const copyKnowledgeProject: CopyKnowledgeProject = (...args) =>
  (require('./application/services/copy-knowledge-project') as typeof import('./application/services/copy-knowledge-project')).copyKnowledgeProject(...args);

type CopyKnowledgeBackups = typeof import('./application/services/copy-knowledge-backups').copyKnowledgeBackups;
/** Copies one project's knowledge backups between two stores (`workgraph db import/export`; loaded on first use). */
export const copyKnowledgeBackups: CopyKnowledgeBackups = (...args) =>
  (require('./application/services/copy-knowledge-backups') as typeof import('./application/services/copy-knowledge-backups')).copyKnowledgeBackups(...args);

/** The knowledge module's data-dir migration steps (loaded on the first call: they pull in the store). */
export const knowledgeMigrations = (): readonly MigrationStep[] =>
  (require('./infrastructure/knowledge-migrations') as typeof import('./infrastructure/knowledge-migrations')).knowledgeMigrations;

/** Registers the knowledge module (wiring loaded on the first call). */
export const registerKnowledgeModule: ModuleRegistration = (container, config) =>
  (require('./knowledge.module') as typeof import('./knowledge.module')).knowledgeModule(container, config);

type SnippetRuns = typeof import('./domain/search/snippet').snippetRuns;
/** A search_nodes snippet read back into runs of text, marked or not (the CLI's text output; loaded on first use). */
export const snippetRuns: SnippetRuns = (...args) => (require('./domain/search/snippet') as typeof import('./domain/search/snippet')).snippetRuns(...args);
