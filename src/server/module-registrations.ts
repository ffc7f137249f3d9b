import type { DependencyContainer } from 'tsyringe';
import type { AppConfig } from '../kernel/config/app-config';
import { tasksModule } from '../modules/tasks/tasks.module';
import { mcpClientPoolModule } from '../modules/graph/mcp-client-pool.module';
import { knowledgeModule } from '../modules/knowledge/knowledge.module';
import { workflowModule } from '../modules/workflow/workflow.module';
import { graphModule } from '../modules/graph/graph.module';

/** Registers one module's ports, services and use cases. Each module has its own file in this folder. */
export type ModuleRegistration = (container: DependencyContainer, config: AppConfig) => void;

/** Every module, in registration order. A module adds itself here with one import and one entry. */
export const moduleRegistrations: ModuleRegistration[] = [tasksModule, mcpClientPoolModule, knowledgeModule, workflowModule, graphModule];
