import type { ModuleRegistration } from '../kernel/module-registration';
import { registerGraphModule, registerMcpClientPoolModule } from '../modules/graph';
import { registerKnowledgeModule } from '../modules/knowledge';
import { registerTasksModule } from '../modules/tasks';
import { registerWorkflowModule } from '../modules/workflow';

export type { ModuleRegistration };

/** Every module, in registration order. A module adds itself here with one import and one entry. */
export const moduleRegistrations: ModuleRegistration[] = [
  registerTasksModule,
  registerMcpClientPoolModule,
  registerKnowledgeModule,
  registerWorkflowModule,
  registerGraphModule,
];
