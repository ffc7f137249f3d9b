import { container as root, type DependencyContainer } from 'tsyringe';
import { Tokens } from '../../../src/kernel/tokens';
import { WorkflowTokens } from '../../../src/modules/workflow';
import { ConditionEvaluator } from '../../../src/modules/workflow/application/services/condition-evaluator';
import { SchemaRegistry } from '../../../src/kernel/schema-registry';
import { ValidationEngine } from '../../../src/modules/workflow/application/services/validation-engine';
import { GetNextStep } from '../../../src/modules/workflow/application/use-cases/get-next-step';
import { ValidateStepOutput } from '../../../src/modules/workflow/application/use-cases/validate-step-output';
import type { Workflow } from '../../../src/modules/workflow/domain/types';
import { MapWorkflowStorage } from './workflow-test-helpers';
import { StepOutputChecker } from '../../../src/modules/workflow/application/services/step-output-checker';
import { ContractSchemaFiles } from '../../../src/modules/workflow/infrastructure/contract-schema-files';
import type { ContractRule } from '../../../src/modules/workflow/application/ports/contract-rules';
import { VerificationService } from '../../../src/modules/workflow/application/services/verification-service';
import { ShellCommandRunner } from '../../../src/modules/tasks/infrastructure/process/shell-command-runner';
import { AllowedRootsPolicy } from '../../../src/kernel/files/allowed-roots-policy';
import { configDefaults } from '../../../src/kernel/config/config-defaults';
import { systemClock, systemTimers } from '../../../src/kernel/clock';

/**
 * A child container wired the way the workflow DI module wires production (real services, tokens and decorators),
 * with an in-memory WorkflowStorage holding `workflows` and the contract rules other modules would register.
 */
export function workflowUseCases(workflows: Workflow[], rules: ContractRule[] = []): {
  container: DependencyContainer;
  next: GetNextStep;
  validate: ValidateStepOutput;
} {
  const c = root.createChildContainer();
  c.registerInstance(WorkflowTokens.WorkflowStorage, new MapWorkflowStorage(workflows));
  c.registerSingleton(Tokens.SchemaRegistry, SchemaRegistry);
  c.registerSingleton(WorkflowTokens.ConditionEvaluator, ConditionEvaluator);
  c.registerSingleton(WorkflowTokens.ValidationEngine, ValidationEngine);
  c.registerSingleton(WorkflowTokens.ContractSchemas, ContractSchemaFiles);
  for (const rule of rules) c.register(WorkflowTokens.ContractRules, { useValue: rule });
  c.registerSingleton(WorkflowTokens.StepOutputChecker, StepOutputChecker);
  // Verification steps run through the real runner, in folders under the default roots (home, temp).
  c.registerInstance(WorkflowTokens.VerificationService, new VerificationService(new ShellCommandRunner(), new AllowedRootsPolicy([]), configDefaults(), systemClock, systemTimers));
  c.register(WorkflowTokens.GetNextStep, { useClass: GetNextStep });
  c.register(WorkflowTokens.ValidateStepOutput, { useClass: ValidateStepOutput });
  return { container: c, next: c.resolve<GetNextStep>(WorkflowTokens.GetNextStep), validate: c.resolve<ValidateStepOutput>(WorkflowTokens.ValidateStepOutput) };
}
