import type { ServerContext } from '@modelcontextprotocol/server';
import type { AppConfig } from '../kernel/config/app-config';
import type { Logger } from '../kernel/logger';
import type { PgDatabase } from '../kernel/postgres/pg-database';
import { ExtensionTasks } from './tasks-extension/extension-tasks';
import type { ExtensionTaskStore } from './tasks-extension/extension-task-store';
import { inputSeam, requestStateCodec, type InputSeam } from './input-required';

/**
 * What the modern era keeps in the stores rather than in an instance's memory, so that any instance of one data dir
 * or database answers: the tasks extension's tasks, and the key that signs `requestState`s.
 */
export interface ProtocolState {
  tasks: ExtensionTasks;
  /** One tool call's questions and answers (input_required), its requestState signed with the store's key. */
  seam(ctx: ServerContext, call: { tool: string; caller: string; args: unknown }): Promise<InputSeam>;
}

/**
 * The protocol state over the configured store: PostgreSQL with `--database-url` (`database()`), else the data dir.
 * Loaded (with node:crypto) on the first modern tool call, never at start (cold start).
 */
export function createProtocolState(config: AppConfig, logger: Logger, database: () => PgDatabase): ProtocolState {
  let store: ExtensionTaskStore | undefined;
  const storeOf = (): ExtensionTaskStore => {
    if (store) return store;
    if (config.database) {
      const { PgExtensionTaskStore } = require('./tasks-extension/pg-extension-task-store') as typeof import('./tasks-extension/pg-extension-task-store');
      return (store = new PgExtensionTaskStore(database()));
    }
    const { FileExtensionTaskStore } = require('./tasks-extension/file-extension-task-store') as typeof import('./tasks-extension/file-extension-task-store');
    return (store = new FileExtensionTaskStore(config.dataDir));
  };
  const codec = requestStateCodec(() => storeOf().signingKey());
  return {
    tasks: new ExtensionTasks(storeOf, logger.child({ component: 'tasks-extension' })),
    seam: (ctx, call) => inputSeam(ctx, call, codec),
  };
}
