import type {
  InvalidWorkflowEntry,
  LocatedWorkflow,
  WorkflowDocumentLookup,
  WorkflowListing,
  WorkflowStorage,
} from '../application/ports/workflow-storage';
import { InvalidWorkflowError, NotFoundError } from '../../../kernel/errors';
import type { Workflow } from '../domain/types';
import { assertSafeName } from '../../../kernel/files/safe-name';

/** A loaded workflow and where it came from. */
export interface WorkflowEntry {
  workflow: Workflow;
  /** Source label (`bundled`, `project`, `env`, `flag`, `memory`). */
  source: string;
  /** The file it was read from, when it came from a file. */
  file?: string;
  /** The workflow of the same id an earlier source held, which this one replaces (MultiSourceWorkflowStorage). */
  shadows?: { source: string; file?: string };
}

/** Everything one storage holds at one moment: the loaded workflows and the files that failed. */
export interface CatalogSnapshot {
  workflows: WorkflowEntry[];
  invalid: InvalidWorkflowEntry[];
  /**
   * The documents as their files give them, by id (first one wins), when they differ from `workflows` (the
   * schema-validating storage serves current-format files compiled; routines are expanded from the raw documents).
   */
  documents?: ReadonlyMap<string, Record<string, unknown>>;
}

/**
 * The WorkflowStorage port plus what the decorators need from each other: whole snapshots (with source and file, so an
 * invalid workflow can be reported with its file) and the folders to watch for changes. Every adapter in this folder
 * implements it; the rest of the application only sees WorkflowStorage.
 */
export interface WorkflowCatalog extends WorkflowStorage {
  snapshot(): Promise<CatalogSnapshot>;
  /** The folders this storage reads (for change detection). */
  folders(): string[];
}

/** The port's `list()` view of a snapshot. */
export function listingOf(snapshot: CatalogSnapshot): WorkflowListing {
  return {
    workflows: snapshot.workflows.map(({ workflow, source, shadows }) => ({
      id: workflow.id,
      name: workflow.name,
      description: workflow.description,
      version: workflow.version,
      source,
      ...(workflow.format === 'current' ? { format: 'current' as const } : {}),
      ...(Array.isArray(workflow.tags) ? { tags: workflow.tags } : {}),
      ...(typeof workflow.about === 'string' ? { about: workflow.about } : {}),
      ...(shadows ? { shadows: shadows.source } : {}),
    })),
    invalid: snapshot.invalid,
  };
}

/** Refuses ids that could name a path (`..`, separators, absolute paths, NUL bytes) before any lookup. */
export function assertWorkflowId(id: string): string {
  return assertSafeName(id, 'id');
}

/**
 * The entry with this id: a loaded one wins over a failed file that only guessed the same id from its name.
 * @throws InvalidWorkflowError when the id belongs to an invalid file; NotFoundError when nothing has it.
 */
export function findEntry(snapshot: CatalogSnapshot, id: string): WorkflowEntry {
  assertWorkflowId(id);
  const entry = snapshot.workflows.find((e) => e.workflow.id === id);
  if (entry) return entry;
  const bad = snapshot.invalid.find((e) => e.id === id);
  if (bad) throw new InvalidWorkflowError(id, bad.file, bad.reason);
  throw new NotFoundError('workflow', id, `workflow '${id}' not found (workflow_list shows the available ids)`);
}

/**
 * The port's `list` and `get` answered from `snapshot()`: every adapter in this folder extends it and supplies its own
 * snapshot and folders.
 */
export abstract class SnapshotWorkflowCatalog implements WorkflowCatalog {
  abstract snapshot(): Promise<CatalogSnapshot>;
  abstract folders(): string[];

  async list(): Promise<WorkflowListing> {
    return listingOf(await this.snapshot());
  }

  async get(id: string): Promise<Workflow> {
    return findEntry(await this.snapshot(), id).workflow;
  }

  async locate(id: string): Promise<LocatedWorkflow> {
    const { workflow, source, file, shadows } = findEntry(await this.snapshot(), id);
    return { workflow, source, ...(file !== undefined ? { file } : {}), ...(shadows ? { shadows } : {}) };
  }

  async documents(): Promise<WorkflowDocumentLookup> {
    const snapshot = await this.snapshot();
    if (snapshot.documents) {
      const documents = snapshot.documents;
      return (id) => documents.get(id);
    }
    const byId = new Map<string, Record<string, unknown>>();
    for (const e of snapshot.workflows) if (!byId.has(e.workflow.id)) byId.set(e.workflow.id, e.workflow as unknown as Record<string, unknown>);
    return (id) => byId.get(id);
  }
}
