import type { DependencyContainer } from 'tsyringe';
import { Lifecycle, instanceCachingFactory } from 'tsyringe';
import { Tokens } from '../../kernel/tokens';
import { KnowledgeTokens } from './application/knowledge.tokens';
import type { Clock } from '../../kernel/clock';
import type { PgDatabase } from '../../kernel/postgres/pg-database';
import type { AppConfig } from '../../kernel/config/app-config';
import type { DataFormatGate } from '../../kernel/files/data-format';
import type { WritesInProgress } from '../../kernel/writes-in-progress';
import { createNdjsonKnowledgeStore, type NdjsonKnowledgeStore } from './infrastructure/ndjson-knowledge-store';
import type { Lifecycle as ServerLifecycle } from '../../kernel/lifecycle';
import { RandomIdGenerator } from '../../kernel/random-id-generator';
import { AddNodes } from './application/use-cases/add-nodes';
import { ListNodes } from './application/use-cases/list-nodes';
import { GetNode } from './application/use-cases/get-node';
import { SearchNodes } from './application/use-cases/search-nodes';
import { GetKnowledgeOverview } from './application/use-cases/get-knowledge-overview';
import type { ChangeEvents } from '../../kernel/change-events';
import type { Logger } from '../../kernel/logger';
import { DeleteNodes } from './application/use-cases/delete-nodes';
import { RestoreNodes } from './application/use-cases/restore-nodes';
import { ListDeletedNodes } from './application/use-cases/list-deleted-nodes';
import { ListKnowledgeBackups } from './application/use-cases/list-knowledge-backups';
import { ListKnowledgeProjects } from './application/use-cases/list-knowledge-projects';
import { RestoreKnowledgeBackup } from './application/use-cases/restore-knowledge-backup';
import type { ModuleRegistration } from '../../kernel/module-registration';
import type { KnowledgeStore } from './application/ports/knowledge-store';
import { KnowledgeChangeReach } from './application/services/knowledge-change-reach';

/** The knowledge module: one store (NDJSON files in the data dir, or PostgreSQL), an id generator and the use cases. */
export const knowledgeModule: ModuleRegistration = (container: DependencyContainer, config: AppConfig) => {
  let files: NdjsonKnowledgeStore | undefined;
  // One store per container (instanceCachingFactory): every use case shares it. PostgreSQL when a database URL is
  // configured (its adapter and the driver load only then), else the NDJSON files of the data dir. Shutdown waits for
  // the writes registered on WritesInProgress (no delete or restore cut in half by an exit).
  container.register(KnowledgeTokens.KnowledgeStore, {
    useFactory: instanceCachingFactory((c) => {
      const writes = c.isRegistered(Tokens.WritesInProgress, true) ? c.resolve<WritesInProgress>(Tokens.WritesInProgress) : undefined;
      const settings = {
        clock: c.resolve<Clock>(Tokens.Clock),
        backupMaxAgeDays: config.knowledge.backupMaxAgeDays,
        backupMaxCount: config.knowledge.backupMaxCount,
        writes,
      };
      if (config.database) {
        const { PgKnowledgeStore } = require('./infrastructure/postgres/pg-knowledge-store') as typeof import('./infrastructure/postgres/pg-knowledge-store');
        return new PgKnowledgeStore(c.resolve<PgDatabase>(Tokens.Database), { ...settings, searchCacheBytes: config.knowledge.searchCacheBytes ?? 0 });
      }
      const format = c.isRegistered(Tokens.DataFormat, true) ? c.resolve<DataFormatGate>(Tokens.DataFormat) : undefined;
      const logger = c.isRegistered(Tokens.Logger, true) ? c.resolve<Logger>(Tokens.Logger) : undefined;
      const changes = c.isRegistered(Tokens.ChangeEvents, true) ? c.resolve<ChangeEvents>(Tokens.ChangeEvents) : undefined;
      return (files = createNdjsonKnowledgeStore(config.dataDir, { ...settings, format, logger, changes }));
    }),
  });
  // On a clean shutdown the files' search index tails (the newest nodes, indexed in memory) are written as segments.
  if (container.isRegistered(Tokens.Lifecycle, true)) {
    container.resolve<ServerLifecycle>(Tokens.Lifecycle).onShutdown('knowledge search index tails', () => files?.flushSearchIndexes());
  }
  container.register(Tokens.ChangeReachers, { useFactory: instanceCachingFactory((c) => new KnowledgeChangeReach(c.resolve<KnowledgeStore>(KnowledgeTokens.KnowledgeStore))) });
  container.register(KnowledgeTokens.KnowledgeIdGenerator, { useClass: RandomIdGenerator }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.AddKnowledgeNodes, { useClass: AddNodes }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.ListKnowledgeNodes, { useClass: ListNodes }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.GetKnowledgeNode, { useClass: GetNode }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.SearchKnowledgeNodes, { useClass: SearchNodes }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.GetKnowledgeOverview, { useClass: GetKnowledgeOverview }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.DeleteKnowledgeNodes, { useClass: DeleteNodes }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.RestoreKnowledgeNodes, { useClass: RestoreNodes }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.ListDeletedKnowledgeNodes, { useClass: ListDeletedNodes }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.ListKnowledgeProjects, { useClass: ListKnowledgeProjects }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.ListKnowledgeBackups, { useClass: ListKnowledgeBackups }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.RestoreKnowledgeBackup, { useClass: RestoreKnowledgeBackup }, { lifecycle: Lifecycle.Singleton });
};
