import { silentLogger, type Logger } from '../../../kernel/logger';
import type { WorkflowProblem } from '../application/services/workflow-document-checker';
import type { Workflow } from '../domain/types';
import { SnapshotWorkflowCatalog, type CatalogSnapshot, type WorkflowCatalog } from './workflow-catalog';

/** What this decorator needs: the schema + structure checks of one parsed workflow document. */
export interface WorkflowDocumentCheck {
  check(document: unknown): WorkflowProblem[];
}

/** How many problems an invalid entry's reason lists before "(and N more)". Default 3. */
const REASON_PROBLEMS = 3;

/**
 * Checks every workflow of the inner storage against spec/workflow.schema.json and the structure checks (step ids
 * unique, loop bodies that name real steps, ...). A workflow that fails moves to `invalid` with its file and reason, is
 * logged once, and `get` of its id throws InvalidWorkflowError with the reason — never "not found".
 */
export class SchemaValidatingWorkflowStorage extends SnapshotWorkflowCatalog {
  private readonly verdicts = new WeakMap<object, string | null>();
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
    const result: CatalogSnapshot = { workflows: [], invalid: [...inner.invalid] };
    for (const entry of inner.workflows) {
      const reason = this.verdict(entry.workflow);
      if (reason === null) {
        result.workflows.push(entry);
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

  /** null when valid, else the reason. Remembered per object: an unchanged snapshot is not re-validated. */
  private verdict(workflow: Workflow): string | null {
    const known = this.verdicts.get(workflow);
    if (known !== undefined) return known;
    const problems = this.checker.check(workflow);
    const reason = problems.length === 0 ? null : reasonOf(problems);
    this.verdicts.set(workflow, reason);
    return reason;
  }
}

function reasonOf(problems: WorkflowProblem[]): string {
  const shown = problems.slice(0, REASON_PROBLEMS).map((p) => `${p.pointer || '(root)'}: ${p.message}`);
  const more = problems.length - shown.length;
  return shown.join('; ') + (more > 0 ? ` (and ${more} more)` : '');
}
