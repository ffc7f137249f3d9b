/**
 * The knowledge module's public face: the only file code outside the module imports (docs/architecture.md). Light:
 * tokens, tool declarations, types and a lazy registration.
 */
import type { ModuleRegistration } from '../../kernel/module-registration';

export { KnowledgeTokens } from './application/knowledge.tokens';
export { knowledgeTools } from './knowledge.tools';
export type { KnowledgeStore } from './application/ports/knowledge-store';
export type { KnowledgeNode } from './domain';

/** Registers the knowledge module (wiring loaded on the first call). */
export const registerKnowledgeModule: ModuleRegistration = (container, config) =>
  (require('./knowledge.module') as typeof import('./knowledge.module')).knowledgeModule(container, config);
