import { Lifecycle as Scope, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import type { PgDatabase } from '../../kernel/postgres/pg-database';
import type { Clock } from '../../kernel/clock';
import type { Logger } from '../../kernel/logger';
import { ConditionEvaluator } from './application/services/condition-evaluator';
import { SchemaRegistry } from '../../kernel/schema-registry';
import { ValidationEngine } from './application/services/validation-engine';
import { WorkflowDocumentChecker } from './application/services/workflow-document-checker';
import { StepOutputChecker } from './application/services/step-output-checker';
import { ContractSchemaFiles } from './infrastructure/contract-schema-files';
import { FileReferenceChecker } from './infrastructure/file-reference-checker';
import { GetNextStep } from './application/use-cases/get-next-step';
import { GetWorkflow } from './application/use-cases/get-workflow';
import { GetWorkflowSchema } from './application/use-cases/get-workflow-schema';
import { ListWorkflows } from './application/use-cases/list-workflows';
import { ValidateStepOutput } from './application/use-cases/validate-step-output';
import { ValidateWorkflowJson } from './application/use-cases/validate-workflow-json';
import type { Lifecycle } from '../../kernel/lifecycle';
import { CachingWorkflowStorage } from './infrastructure/caching-workflow-storage';
import { FileWorkflowStorage } from './infrastructure/file-workflow-storage';
import { MultiSourceWorkflowStorage } from './infrastructure/multi-source-workflow-storage';
import { SchemaValidatingWorkflowStorage } from './infrastructure/schema-validating-workflow-storage';
import { loadWorkflowSchema } from './infrastructure/workflow-schema-file';
import { FileWorkspaceWorkflowCatalogs } from './infrastructure/workspace-workflow-catalogs';
import { WorkspaceWorkflows } from './application/services/workspace-workflows';
import { Tokens } from '../../kernel/tokens';
import { WorkflowTokens } from './application/workflow.tokens';
import type { ModuleRegistration } from '../../kernel/module-registration';
import * as path from 'node:path';
import type { ChangeEvents } from '../../kernel/change-events';
import { SessionEngine } from './application/services/session-engine';
import { StartSession } from './application/use-cases/sessions/start-session';
import { ContinueSession } from './application/use-cases/sessions/continue-session';
import { CheckpointSession } from './application/use-cases/sessions/checkpoint-session';
import { ResumeSessions } from './application/use-cases/sessions/resume-sessions';
import { ListSessions } from './application/use-cases/sessions/list-sessions';
import { GetSessionTimeline } from './application/use-cases/sessions/get-session-timeline';
import { PruneSessions } from './application/use-cases/sessions/prune-sessions';
import { FileSessionStore } from './infrastructure/sessions/file-session-store';
import { SessionChangeReach } from './application/services/session-change-reach';
import type { SessionStore } from './application/ports/session-store';
import { HmacSessionTokens } from './infrastructure/sessions/hmac-session-tokens';
import { VerificationService } from './application/services/verification-service';
import type { VerificationRunner } from './application/ports/verification-runner';
import { CommandFailedError } from '../../kernel/errors';

/**
 * The workflow module. WorkflowTokens.WorkflowStorage is
 * `Caching(SchemaValidating(MultiSource([File per AppConfig.workflowSources])))`, built on first use (the schema is
 * read and compiled only then), cached for AppConfig.workflowCacheTtlMs and dropped early when a source folder
 * changes; its folder watchers are closed on shutdown. Services and use cases are singletons (all stateless or
 * holding caches meant to be shared).
 */
export const workflowModule: ModuleRegistration = (container, config) => {
  const singleton = { lifecycle: Scope.Singleton };
  container.register(WorkflowTokens.WorkflowSchema, { useFactory: instanceCachingFactory(() => loadWorkflowSchema()) });
  // The foundation container registers the shared SchemaRegistry; a container built without it still works.
  if (!container.isRegistered(Tokens.SchemaRegistry, true)) container.register(Tokens.SchemaRegistry, { useClass: SchemaRegistry }, singleton);
  container.register(WorkflowTokens.ConditionEvaluator, { useClass: ConditionEvaluator }, singleton);
  container.register(WorkflowTokens.ValidationEngine, { useClass: ValidationEngine }, singleton);
  container.register(WorkflowTokens.WorkflowDocumentChecker, { useClass: WorkflowDocumentChecker }, singleton);
  container.register(WorkflowTokens.ContractSchemas, { useClass: ContractSchemaFiles }, singleton);
  container.register(WorkflowTokens.StepOutputChecker, { useClass: StepOutputChecker }, singleton);
  container.register(WorkflowTokens.ReferenceChecker, { useClass: FileReferenceChecker }, singleton);

  let storage: CachingWorkflowStorage | undefined;
  let sourceFolders: FileWorkflowStorage[] | undefined;
  const sourcesOf = (c: DependencyContainer) => {
    const logger = c.resolve<Logger>(Tokens.Logger).child({ component: 'workflow-storage' });
    sourceFolders ??= config.workflowSources.map((s) => new FileWorkflowStorage(s.dir, s.source, logger));
    return { files: sourceFolders, logger };
  };
  container.register(WorkflowTokens.WorkflowStorage, {
    useFactory: (c) => {
      if (storage) return storage;
      const { files, logger } = sourcesOf(c);
      const validating = new SchemaValidatingWorkflowStorage(
        new MultiSourceWorkflowStorage(files),
        c.resolve<WorkflowDocumentChecker>(WorkflowTokens.WorkflowDocumentChecker),
        logger,
      );
      storage = new CachingWorkflowStorage(validating, { ttlMs: config.workflowCacheTtlMs }, c.resolve<Clock>(Tokens.Clock), logger);
      return storage;
    },
  });
  // A workspace's own workflows (.workrail/workflows, .workgraph/workflows) over the same source folders.
  let workspaceCatalogs: FileWorkspaceWorkflowCatalogs | undefined;
  container.register(WorkflowTokens.WorkspaceCatalogs, {
    useFactory: instanceCachingFactory((c) => {
      const { files, logger } = sourcesOf(c);
      return (workspaceCatalogs = new FileWorkspaceWorkflowCatalogs(files, c.resolve<WorkflowDocumentChecker>(WorkflowTokens.WorkflowDocumentChecker), {
        ttlMs: config.workflowCacheTtlMs,
        clock: c.resolve<Clock>(Tokens.Clock),
        logger,
      }));
    }),
  });
  container.register(WorkflowTokens.WorkspaceWorkflows, { useClass: WorkspaceWorkflows }, singleton);
  if (container.isRegistered(Tokens.Lifecycle, true)) {
    container.resolve<Lifecycle>(Tokens.Lifecycle).onShutdown('workflow folder watchers', () => {
      storage?.close();
      workspaceCatalogs?.close();
    });
  }

  // Verification commands run through the tasks module's runner (one runner per server: its process trees are killed on
  // shutdown with the tasks'); a container without the tasks module cannot run them and says so.
  container.register(WorkflowTokens.VerificationRunner, {
    useFactory: instanceCachingFactory<VerificationRunner>((c) =>
      c.isRegistered(Tokens.CommandRunner, true)
        ? c.resolve<VerificationRunner>(Tokens.CommandRunner)
        : { run: async (req) => Promise.reject(new CommandFailedError(`no command runner is configured to run '${req.command}'`, { cwd: req.cwd })) },
    ),
  });
  container.register(WorkflowTokens.VerificationService, { useClass: VerificationService }, singleton);
  container.register(WorkflowTokens.ListWorkflows, { useClass: ListWorkflows }, singleton);
  container.register(WorkflowTokens.GetWorkflow, { useClass: GetWorkflow }, singleton);
  container.register(WorkflowTokens.GetNextStep, { useClass: GetNextStep }, singleton);
  container.register(WorkflowTokens.ValidateStepOutput, { useClass: ValidateStepOutput }, singleton);
  container.register(WorkflowTokens.ValidateWorkflowJson, { useClass: ValidateWorkflowJson }, singleton);
  container.register(WorkflowTokens.GetWorkflowSchema, { useClass: GetWorkflowSchema }, singleton);

  // Durable sessions: files under <data-dir>/sessions, or PostgreSQL when a database URL is configured (the adapter and
  // the driver load only then; the token key then lives in the database, so every server of it accepts the tokens).
  const sessionsDir = path.join(config.dataDir, 'sessions');
  const changesOf = (c: DependencyContainer) => (c.isRegistered(Tokens.ChangeEvents, true) ? c.resolve<ChangeEvents>(Tokens.ChangeEvents) : undefined);
  if (config.database) {
    const pg = () => require('./infrastructure/postgres/pg-session-store') as typeof import('./infrastructure/postgres/pg-session-store');
    container.register(WorkflowTokens.SessionStore, { useFactory: instanceCachingFactory((c) => new (pg().PgSessionStore)(c.resolve<PgDatabase>(Tokens.Database), config.sessions.logMaxBytes)) });
    container.register(WorkflowTokens.SessionTokens, { useFactory: instanceCachingFactory((c) => new HmacSessionTokens(pg().databaseTokenKey(c.resolve<PgDatabase>(Tokens.Database)))) });
  } else {
    container.register(WorkflowTokens.SessionStore, {
      useFactory: instanceCachingFactory(
        (c) => new FileSessionStore(sessionsDir, c.resolve<Logger>(Tokens.Logger).child({ component: 'sessions' }), changesOf(c), config.sessions.logMaxBytes),
      ),
    });
    container.register(WorkflowTokens.SessionTokens, { useFactory: instanceCachingFactory(() => new HmacSessionTokens(path.join(sessionsDir, 'token.key'))) });
  }
  container.register(Tokens.ChangeReachers, { useFactory: instanceCachingFactory((c) => new SessionChangeReach(c.resolve<SessionStore>(WorkflowTokens.SessionStore))) });
  container.register(WorkflowTokens.SessionEngine, { useClass: SessionEngine }, singleton);
  container.register(WorkflowTokens.StartSession, { useClass: StartSession }, singleton);
  container.register(WorkflowTokens.ContinueSession, { useClass: ContinueSession }, singleton);
  container.register(WorkflowTokens.CheckpointSession, { useClass: CheckpointSession }, singleton);
  container.register(WorkflowTokens.ResumeSessions, { useClass: ResumeSessions }, singleton);
  container.register(WorkflowTokens.ListSessions, { useClass: ListSessions }, singleton);
  container.register(WorkflowTokens.GetSessionTimeline, { useClass: GetSessionTimeline }, singleton);
  container.register(WorkflowTokens.PruneSessions, { useClass: PruneSessions }, singleton);
};
