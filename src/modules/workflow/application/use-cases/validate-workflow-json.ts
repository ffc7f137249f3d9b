import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../workflow.tokens';
import type { UseCase } from '../../../../kernel/use-case';
import { parseStrictJson } from '../../../../kernel/json-text';
import type { WorkflowDocumentChecker, WorkflowProblem } from '../services/workflow-document-checker';
import type { RoutineLookup } from '../../domain/current-format/compile';
import { semanticsWarnings } from '../../domain/current-format/semantics-warnings';
import type { CallContext } from '../../../../kernel/call-context';
import type { WorkflowStorage } from '../ports/workflow-storage';
import type { ReferenceBases, ReferenceChecker } from '../ports/reference-checker';
import { referenceWarnings } from '../../domain/current-format/references';
import { moreIssuesNotShown } from '../../domain/guidance';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { workflowValidateJsonSchemas } from '../workflow.tool-schemas';

/**
 * The tool's input, as its schema describes it, plus what only `workgraph validate` passes (not tool arguments):
 * - `lookupRoutine`: where templateCall routines are looked up (the files being validated, their folders and the
 *   bundled workflows). Default: the server's loaded workflows (its workflow folders and the bundled ones).
 * - `referenceBases`: where `references` resolve (the file's folder and the current folder). Default: no file (text
 *   has no folder, so `package` references are not checked) and the caller's first MCP root as the workspace.
 */
export type ValidateWorkflowJsonInput = ToolInput<typeof workflowValidateJsonSchemas> & { lookupRoutine?: RoutineLookup; referenceBases?: ReferenceBases };

/**
 * The tool's answer, as its output schema describes it: each issue has the JSON pointer of the value at fault ("" for
 * the whole document and syntax errors) and its 1-based line and column; `format`/`formatReason` are absent for a
 * syntax error; `warnings` are not errors.
 */
type DeclaredOutput = ToolOutput<typeof workflowValidateJsonSchemas>;
/** One problem found in the text. */
export type WorkflowJsonIssue = DeclaredOutput['issues'][number];
/** The schema leaves a warning's fields optional (clients stay lenient); the server always fills them in, as issues. */
export type ValidateWorkflowJsonOutput = Omit<DeclaredOutput, 'warnings'> & { warnings?: WorkflowJsonIssue[] };

/** At most this many issues are returned (the rest are counted in a last issue). Default 50. */
export const MAX_WORKFLOW_JSON_ISSUES = 50;

/**
 * workflow_validate_json: checks the text of a workflow file — strict JSON syntax, then the workflow schema, then the
 * structure checks — and reports each problem with a JSON pointer and the line/column of the value it points at.
 * Only positions and short messages come back, never the input itself.
 */
@injectable()
export class ValidateWorkflowJson implements UseCase<ValidateWorkflowJsonInput, ValidateWorkflowJsonOutput> {
  constructor(
    @inject(WorkflowTokens.WorkflowDocumentChecker) private readonly checker: WorkflowDocumentChecker,
    @inject(WorkflowTokens.WorkflowStorage, { isOptional: true }) private readonly storage?: Pick<WorkflowStorage, 'documents'>,
    @inject(WorkflowTokens.ReferenceChecker, { isOptional: true }) private readonly references?: ReferenceChecker,
  ) {}

  async execute(input: ValidateWorkflowJsonInput, ctx?: CallContext): Promise<ValidateWorkflowJsonOutput> {
    const parsed = parseStrictJson(input.workflowJson, MAX_WORKFLOW_JSON_ISSUES);
    if (!parsed.ok) {
      return {
        valid: false,
        issues: parsed.issues.map(({ line, column, message }) => ({ path: '', line, column, message })),
        suggestions: [
          'Fix the JSON syntax first: strict JSON allows no comments and no trailing commas, and strings and property names use double quotes.',
        ],
      };
    }
    const lookupRoutine = input.lookupRoutine ?? (this.storage ? await this.storage.documents() : undefined);
    const checked = this.checker.checkDocument(parsed.value, { lookupRoutine });
    const problems = checked.problems;
    const shown = problems.slice(0, MAX_WORKFLOW_JSON_ISSUES);
    const issues: WorkflowJsonIssue[] = shown.map((p) => {
      const pos = parsed.text.positionOfPointer(p.pointer);
      return { path: p.pointer, line: pos.line, column: pos.column, message: p.message };
    });
    if (problems.length > shown.length) {
      issues.push({ path: '', line: 1, column: 1, message: moreIssuesNotShown(problems.length - shown.length) });
    }
    const missing =
      checked.format === 'current' && this.references
        ? referenceWarnings(await this.references.check((parsed.value as { references?: unknown }).references, await basesOf(input, ctx)))
        : [];
    const warnings = [...semanticsWarnings(parsed.value, checked.format), ...missing].map((w) => {
      const pos = parsed.text.positionOfPointer(w.pointer);
      return { path: w.pointer, line: pos.line, column: pos.column, message: w.message };
    });
    return {
      valid: problems.length === 0,
      issues,
      suggestions: suggestionsFor(problems),
      format: checked.format,
      formatReason: checked.formatReason,
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  }
}

/** The given bases, else no file and the caller's first MCP root as the workspace. */
async function basesOf(input: ValidateWorkflowJsonInput, ctx: CallContext | undefined): Promise<ReferenceBases> {
  if (input.referenceBases) return input.referenceBases;
  const roots = ctx?.clientRoots ? await ctx.clientRoots().catch(() => undefined) : undefined;
  return roots?.length ? { workspace: roots[0] } : {};
}

/** Actionable advice for the kinds of problems found (at most one line per kind). */
function suggestionsFor(problems: WorkflowProblem[]): string[] {
  if (problems.length === 0) return [];
  const out = new Set<string>();
  for (const p of problems) {
    if (p.keyword === 'structure') {
      out.add('Step ids must be unique across the workflow, and a loop body that names steps must name top-level steps other than the loop itself.');
    } else if (/\/loop(\/|$)/.test(p.pointer)) {
      out.add('Loops need maxIterations (at least 1); while/until need a condition, forEach needs items (a context array name), for needs count.');
    } else if (/\/validationCriteria(\/|$)/.test(p.pointer)) {
      out.add('A validation rule is {type: contains|regex|length|schema, ...}; combine rules with {and: [...]}, {or: [...]}, {not: ...} or a plain array.');
    } else if (p.keyword === 'additionalProperties') {
      out.add('Remove or rename unknown properties (a typo such as "promt" for "prompt"?); the message lists the allowed ones.');
    } else if (p.keyword === 'required') {
      out.add('Add the missing required properties: a workflow needs id, name, description, version and steps; a step needs id, title and prompt; a loop step needs type "loop", title, loop and body.');
    } else if (p.pointer === '/id' && p.keyword === 'pattern') {
      out.add("Workflow ids use only lowercase letters, digits and '-' (e.g. \"fix-failing-test\").");
    } else if (p.pointer === '/version') {
      out.add('Use a semantic version such as "1.0.0".');
    }
  }
  out.add('Call workflow_get_schema for the full schema, and see docs/writing-workflows.md.');
  return [...out];
}
