import type { DependencyContainer } from 'tsyringe';
import { Lifecycle, instanceCachingFactory } from 'tsyringe';
import { Tokens } from '../../kernel/tokens';
import { KnowledgeTokens } from './application/knowledge.tokens';
import type { Clock } from '../../kernel/clock';
import type { AppConfig } from '../../kernel/config/app-config';
import type { DataFormatGate } from '../../kernel/files/data-format';
import type { WritesInProgress } from '../../kernel/writes-in-progress';
import { createNdjsonKnowledgeStore } from './infrastructure/ndjson-knowledge-store';
import { RandomIdGenerator } from '../../kernel/random-id-generator';
import { AddNodes } from './application/use-cases/add-nodes';
import { ListNodes } from './application/use-cases/list-nodes';
import { GetNode } from './application/use-cases/get-node';
import { DeleteNodes } from './application/use-cases/delete-nodes';
import { RestoreNodes } from './application/use-cases/restore-nodes';
import { ListDeletedNodes } from './application/use-cases/list-deleted-nodes';
import { ListKnowledgeBackups } from './application/use-cases/list-knowledge-backups';
import { ListKnowledgeProjects } from './application/use-cases/list-knowledge-projects';
import { RestoreKnowledgeBackup } from './application/use-cases/restore-knowledge-backup';
import type { ModuleRegistration } from '../../kernel/module-registration';

/** The knowledge module: one NDJSON store for the data dir (shared), an id generator, and the five use cases. */
export const knowledgeModule: ModuleRegistration = (container: DependencyContainer, config: AppConfig) => {
  container.register(KnowledgeTokens.KnowledgeStore, {
    // One store per container (instanceCachingFactory): every use case shares it.
    useFactory: instanceCachingFactory((c) =>
      createNdjsonKnowledgeStore(config.dataDir, {
        clock: c.resolve<Clock>(Tokens.Clock),
        backupMaxAgeDays: config.knowledge.backupMaxAgeDays,
        backupMaxCount: config.knowledge.backupMaxCount,
        // Shutdown waits for the writes registered here (no delete or restore cut in half by an exit).
        writes: c.isRegistered(Tokens.WritesInProgress, true) ? c.resolve<WritesInProgress>(Tokens.WritesInProgress) : undefined,
        format: c.isRegistered(Tokens.DataFormat, true) ? c.resolve<DataFormatGate>(Tokens.DataFormat) : undefined,
      }),
    ),
  });
  container.register(KnowledgeTokens.KnowledgeIdGenerator, { useClass: RandomIdGenerator }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.AddKnowledgeNodes, { useClass: AddNodes }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.ListKnowledgeNodes, { useClass: ListNodes }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.GetKnowledgeNode, { useClass: GetNode }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.DeleteKnowledgeNodes, { useClass: DeleteNodes }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.RestoreKnowledgeNodes, { useClass: RestoreNodes }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.ListDeletedKnowledgeNodes, { useClass: ListDeletedNodes }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.ListKnowledgeProjects, { useClass: ListKnowledgeProjects }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.ListKnowledgeBackups, { useClass: ListKnowledgeBackups }, { lifecycle: Lifecycle.Singleton });
  container.register(KnowledgeTokens.RestoreKnowledgeBackup, { useClass: RestoreKnowledgeBackup }, { lifecycle: Lifecycle.Singleton });
};
