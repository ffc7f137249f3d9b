import { silentLogger, type Logger } from '../../../kernel/logger';
import type { CheckedWorkflow, CheckOptions } from '../application/services/workflow-document-checker';
import type { Workflow } from '../domain/types';
import { SnapshotWorkflowCatalog, type CatalogSnapshot, type WorkflowCatalog } from './workflow-catalog';

/** What this decorator needs: the schema + structure checks of one parsed workflow document. */
export interface WorkflowDocumentCheck {
  checkDocument(document: unknown, options?: CheckOptions): CheckedWorkflow;
}

/** How many problems an invalid entry's reason lists before "(and N more)". Default 3. */
const REASON_PROBLEMS = 3;

/**
 * Checks every workflow of the inner storage against spec/workflow.schema.json and the structure checks (step ids
 * unique, loop bodies that name real steps, ...), in the format each file is written in. A current-format file is
 * served compiled (promptBlocks rendered, templateCall routines expanded from the loaded workflows…): compiled once
 * per file version, since the caching storage above reloads only when a file changes. A workflow that fails moves to
 * `invalid` with its file and reason, is logged once, and `get` of its id throws InvalidWorkflowError with the reason
 * — never "not found".
 */
export class SchemaValidatingWorkflowStorage extends SnapshotWorkflowCatalog {
  private readonly verdicts = new WeakMap<object, { reason: string | null; workflow?: Workflow }>();
  private readonly logged = new Set<string>();

  constructor(
    private readonly inner: WorkflowCatalog,
    private readonly checker: WorkflowDocumentCheck,
    private readonly logger: Logger = silentLogger,
  ) {
    super();
  }

  folders(): string[] {
    return this.inner.folders();
  }


  async snapshot(): Promise<CatalogSnapshot> {
    const inner = await this.inner.snapshot();
    const byId = new Map<string, Record<string, unknown>>();
    const result: CatalogSnapshot = { workflows: [], invalid: [...inner.invalid], documents: byId };
    for (const entry of inner.workflows) if (!byId.has(entry.workflow.id)) byId.set(entry.workflow.id, entry.workflow as unknown as Record<string, unknown>);
    const lookupRoutine = (id: string) => byId.get(id);
    for (const entry of inner.workflows) {
      const { reason, workflow } = this.verdict(entry.workflow, lookupRoutine);
      if (reason === null) {
        result.workflows.push(workflow === entry.workflow ? entry : { ...entry, workflow: workflow! });
        continue;
      }
      const bad = { id: entry.workflow.id, file: entry.file ?? `(${entry.source})`, source: entry.source, reason };
      result.invalid.push(bad);
      const key = `${bad.file}\0${reason}`;
      if (!this.logged.has(key)) {
        this.logged.add(key);
        this.logger.warn(`skipping workflow file ${bad.file}: ${reason}`, { file: bad.file, reason });
      }
    }
    return result;
  }

  /**
   * reason null and the workflow to serve (compiled for the current format) when valid, else the reason. Remembered
   * per object: an unchanged snapshot is not re-validated or recompiled.
   */
  private verdict(workflow: Workflow, lookupRoutine: CheckOptions['lookupRoutine']): { reason: string | null; workflow?: Workflow } {
    const known = this.verdicts.get(workflow);
    if (known !== undefined) return known;
    const checked = this.checker.checkDocument(workflow, { lookupRoutine });
    const verdict =
      checked.problems.length === 0
        ? { reason: null, workflow: checked.format === 'current' ? checked.workflow : workflow }
        : { reason: reasonOf(checked.problems) };
    this.verdicts.set(workflow, verdict);
    return verdict;
  }
}

function reasonOf(problems: CheckedWorkflow['problems']): string {
  const shown = problems.slice(0, REASON_PROBLEMS).map((p) => `${p.pointer || '(root)'}: ${p.message}`);
  const more = problems.length - shown.length;
  return shown.join('; ') + (more > 0 ? ` (and ${more} more)` : '');
}
