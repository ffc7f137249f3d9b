import type { DependencyContainer } from 'tsyringe';
import { Lifecycle, instanceCachingFactory } from 'tsyringe';
import { Tokens } from '../tokens';
import type { Clock } from '../../application/ports/clock';
import type { Lifecycle as LifecycleHooks } from '../../infrastructure/lifecycle/lifecycle';
import type { DataFormatGate } from '../../infrastructure/files/data-format';
import type { AppConfig } from '../../infrastructure/config/app-config';
import { createNdjsonKnowledgeStore } from '../../infrastructure/knowledge/ndjson-knowledge-store';
import { RandomIdGenerator } from '../../infrastructure/knowledge/random-id-generator';
import { AddNodes } from '../../application/use-cases/knowledge/add-nodes';
import { ListNodes } from '../../application/use-cases/knowledge/list-nodes';
import { GetNode } from '../../application/use-cases/knowledge/get-node';
import { DeleteNodes } from '../../application/use-cases/knowledge/delete-nodes';
import { RestoreNodes } from '../../application/use-cases/knowledge/restore-nodes';
import type { ModuleRegistration } from './index';

/** The knowledge module: one NDJSON store for the data dir (shared), an id generator, and the five use cases. */
export const knowledgeModule: ModuleRegistration = (container: DependencyContainer, config: AppConfig) => {
  container.register(Tokens.KnowledgeStore, {
    // One store per container (instanceCachingFactory): every use case shares it.
    useFactory: instanceCachingFactory((c) =>
      createNdjsonKnowledgeStore(config.dataDir, {
        clock: c.resolve<Clock>(Tokens.Clock),
        backupMaxAgeDays: config.knowledge.backupMaxAgeDays,
        backupMaxCount: config.knowledge.backupMaxCount,
        // Shutdown waits for the writes registered here (no delete or restore cut in half by an exit).
        writes: c.isRegistered(Tokens.Lifecycle, true) ? c.resolve<LifecycleHooks>(Tokens.Lifecycle).writes : undefined,
        format: c.isRegistered(Tokens.DataFormat, true) ? c.resolve<DataFormatGate>(Tokens.DataFormat) : undefined,
      }),
    ),
  });
  container.register(Tokens.KnowledgeIdGenerator, { useClass: RandomIdGenerator }, { lifecycle: Lifecycle.Singleton });
  container.register(Tokens.AddKnowledgeNodes, { useClass: AddNodes }, { lifecycle: Lifecycle.Singleton });
  container.register(Tokens.ListKnowledgeNodes, { useClass: ListNodes }, { lifecycle: Lifecycle.Singleton });
  container.register(Tokens.GetKnowledgeNode, { useClass: GetNode }, { lifecycle: Lifecycle.Singleton });
  container.register(Tokens.DeleteKnowledgeNodes, { useClass: DeleteNodes }, { lifecycle: Lifecycle.Singleton });
  container.register(Tokens.RestoreKnowledgeNodes, { useClass: RestoreNodes }, { lifecycle: Lifecycle.Singleton });
};
