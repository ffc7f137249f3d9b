import { inject, injectable } from 'tsyringe';
import { Tokens } from '../../../../kernel/tokens';
import { WorkflowTokens } from '../workflow.tokens';
import { checkWorkflowStructure } from '../../domain/structure-checks';
import { compileCurrentWorkflow, type RoutineLookup } from '../../domain/current-format/compile';
import { detectFormat } from '../../domain/current-format/detect-format';
import { refusalOf } from '../../domain/current-format/refused-fields';
import { isPlainObject } from '../../domain/context-path';
import type { Workflow, WorkflowFormat } from '../../domain/types';
import type { SchemaRegistry } from '../../../../kernel/schema-registry';
import { LinearRegExp } from '../../../../kernel/regex/linear-regex';

/** One problem in a workflow document: a JSON pointer (`""` for the whole document) and what was expected. */
export interface WorkflowProblem {
  pointer: string;
  message: string;
  /** The failed JSON Schema keyword (`required`, `additionalProperties`, ...), or `structure` for structure checks. */
  keyword: string;
}

export interface CheckOptions {
  /** Where templateCall routines are found (current format). Without it every templateCall is an error naming its routine. */
  lookupRoutine?: RoutineLookup;
}

export interface CheckedWorkflow {
  format: WorkflowFormat;
  /** Why that format was chosen (a dotted id, the first current-only field found…). */
  formatReason: string;
  problems: WorkflowProblem[];
  /** The workflow as step resolution walks it (current format compiled); present when there are no problems. */
  workflow?: Workflow;
}

/**
 * The one definition of "a valid workflow", in either format: the file's format is detected (detectFormat), checked
 * against its part of spec/workflow.schema.json (`definitions.classicWorkflow` or `definitions.currentWorkflow`), then —
 * in the same pass, so schema problems do not hide the others — the structure checks (unique step ids, loop bodies
 * naming real top-level steps, no loops containing each other), regex patterns that do not compile, and for the
 * current format the compiler's checks (refs, features, contracts, assessments, templateCall routines, nested loops,
 * prompt and promptBlocks). Used by SchemaValidatingWorkflowStorage, workflow_validate_json and `workgraph validate`.
 */
@injectable()
export class WorkflowDocumentChecker {
  private readonly parts = new WeakMap<object, Record<WorkflowFormat, Record<string, unknown>>>();

  constructor(
    @inject(Tokens.SchemaRegistry) private readonly schemas: SchemaRegistry,
    @inject(WorkflowTokens.WorkflowSchema) private readonly schema: Record<string, unknown>,
  ) {}

  check(document: unknown, options: CheckOptions = {}): WorkflowProblem[] {
    return this.checkDocument(document, options).problems;
  }

  checkDocument(document: unknown, options: CheckOptions = {}): CheckedWorkflow {
    const { format, reason } = detectFormat(document);
    const problems: WorkflowProblem[] = [];
    const add = (p: WorkflowProblem) => {
      if (!problems.some((q) => q.pointer === p.pointer && q.message === p.message)) problems.push(p);
    };
    const result = this.schemas.validate(this.partSchema(format), document);
    if (!result.valid) {
      for (const { pointer, message, keyword } of result.errors) {
        // A field refused on purpose says why, not only that it is not allowed.
        const refused = keyword === 'additionalProperties' ? refusalOf(decodeURIComponent(pointer.slice(pointer.lastIndexOf('/') + 1))) : undefined;
        add({ pointer, message: refused ?? message, keyword });
      }
    }
    if (!isPlainObject(document) || !Array.isArray(document.steps)) return { format, formatReason: reason, problems };

    let workflow = document as unknown as Workflow;
    if (format === 'current') {
      const compiled = compileCurrentWorkflow(document, options.lookupRoutine ?? (() => undefined));
      for (const p of compiled.problems) add({ pointer: p.pointer, message: p.message, keyword: 'compile' });
      workflow = compiled.workflow;
    }
    // Structure checks read the raw document's pointers (compiled routine steps would have none of their own).
    for (const { path, message } of checkWorkflowStructure(document as unknown as Workflow)) add({ pointer: path, message, keyword: 'structure' });
    for (const p of regexProblems(document.steps, '/steps')) add(p);
    return { format, formatReason: reason, problems, ...(problems.length === 0 ? { workflow } : {}) };
  }

  /** The schema of one format: the whole file's definitions, with that format's workflow as the root. */
  private partSchema(format: WorkflowFormat): Record<string, unknown> {
    let parts = this.parts.get(this.schema);
    if (!parts) {
      const id = String(this.schema.$id ?? 'https://workgraph.dev/schemas/workflow.schema.json');
      const part = (name: string, suffix: string) => ({
        $schema: this.schema.$schema,
        $id: `${id.replace(/\.json$/, '')}.${suffix}.json`,
        definitions: this.schema.definitions,
        allOf: [{ $ref: `#/definitions/${name}` }],
      });
      parts = { classic: part('classicWorkflow', 'classic'), current: part('currentWorkflow', 'current') };
      this.parts.set(this.schema, parts);
    }
    return parts[format];
  }
}

/** Every `regex` rule whose pattern does not compile, with the pointer of its pattern: a load error, not a run-time one. */
function regexProblems(value: unknown, pointer: string): WorkflowProblem[] {
  const out: WorkflowProblem[] = [];
  const visit = (v: unknown, at: string): void => {
    if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, `${at}/${i}`));
      return;
    }
    if (!isPlainObject(v)) return;
    if (v.type === 'regex' && typeof v.pattern === 'string') {
      const flags = typeof v.flags === 'string' ? v.flags.replace(/[gy]/g, '') : '';
      try {
        new LinearRegExp(v.pattern, flags);
      } catch (e) {
        out.push({ pointer: `${at}/pattern`, message: `invalid regex /${v.pattern}/${flags}: ${(e as Error).message}`, keyword: 'regex' });
      }
    }
    for (const [k, child] of Object.entries(v)) if (typeof child === 'object' && child !== null && k !== 'schema') visit(child, `${at}/${k}`);
  };
  visit(value, pointer);
  return out;
}
