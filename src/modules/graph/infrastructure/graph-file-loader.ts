import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { InvalidGraphError } from '../../../kernel/errors';
import { checkGraph } from '../domain/graph-checks';
import { locateExpression } from '../domain/expression-position';
import { describeIssue, type GraphIssue, type PositionLookup } from '../domain/graph-issue';
import { normalizeGraphConfig } from '../domain/normalize-graph-config';
import { compileGraph, type CompileOptions, type CompiledGraph } from '../application/engine/compiled-graph';
import { packageRoot } from '../../../kernel/config/package-root';
import { parseGraphDocument } from './graph-document';
import type { McpServerConfig } from '../domain/types';
import { graphFileRevision } from './graph-file-revision';

/** One problem of a graph file, as `workgraph validate` prints it: `file:line:column: message`. */
export interface GraphFileProblem {
  file: string;
  line: number;
  column: number;
  message: string;
}

/** spec/graph.schema.json, located from the package root (works from src/ and dist/). */
export function graphSchemaPath(): string {
  return path.join(packageRoot(), 'spec', 'graph.schema.json');
}

/**
 * Reads graph files (YAML or JSON, any mcpgraph 0.1.x format) into compiled graphs. Every file goes through: parse
 * (with positions) → spec/graph.schema.json → normalize → structural checks (entry/exit, references, servers,
 * reachability, duplicate ids) → compile (JSONata, JSON Logic, input schemas). Each problem names file, tool, node and
 * line. The schema is compiled once per loader.
 */
/** Options of {@link GraphFileLoader}. */
export interface GraphFileLoaderOptions extends CompileOptions {
  /**
   * MCP server definitions merged into every graph's servers (`--mcp-config FILE`, mcpgraph's `-m`); a graph's own
   * definition of the same name wins.
   */
  mcpServers?: Record<string, McpServerConfig>;
}

export class GraphFileLoader {
  private schemaValidator?: ValidateFunction;

  constructor(private readonly options: GraphFileLoaderOptions = {}) {}

  /**
   * Loads and compiles one file.
   * @throws InvalidGraphError for the first problem (the message counts the others); details carry file, tool, node, line.
   */
  async load(file: string): Promise<CompiledGraph> {
    const abs = path.resolve(file);
    const { graph, issues } = await this.read(abs);
    if (issues.length > 0 || !graph) {
      const first = issues[0]!;
      const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
      const line = first.position?.line;
      throw new InvalidGraphError(
        `${abs}${line !== undefined ? `:${line}:${first.position!.column}` : ''}: ${describeIssue(first)}${more}`,
        { file: abs, ...(first.tool !== undefined ? { tool: first.tool } : {}), ...(first.node !== undefined ? { node: first.node } : {}), ...(line !== undefined ? { line } : {}) },
      );
    }
    return graph;
  }

  /** Every problem of one file (empty when it loads), for `workgraph validate`. */
  async check(file: string, text?: string): Promise<GraphFileProblem[]> {
    const abs = path.resolve(file);
    const { issues } = text === undefined ? await this.read(abs) : await this.readText(abs, text);
    return issues.map((i) => ({ file, line: i.position?.line ?? 1, column: i.position?.column ?? 1, message: describeIssue(i) }));
  }

  /**
   * Every problem of one file and, when it loads, its warnings (a file with no tools, a regex left on the native
   * engine) — what `workgraph validate` prints, the warnings marked so the exit code stays 0.
   */
  async checkWithWarnings(file: string, text: string): Promise<Array<GraphFileProblem & { severity?: 'warning' }>> {
    const { graph, issues } = await this.readText(path.resolve(file), text);
    const at = (i: GraphIssue) => ({ file, line: i.position?.line ?? 1, column: i.position?.column ?? 1, message: describeIssue(i) });
    return [...issues.map(at), ...(graph?.warnings ?? []).map((w) => ({ ...at(w), severity: 'warning' as const }))];
  }

  /** Reads one file into a compiled graph, collecting every problem instead of stopping at the first. */
  async read(file: string): Promise<{ graph?: CompiledGraph; issues: GraphIssue[] }> {
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (err) {
      return { issues: [{ message: `cannot read graph file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}` }] };
    }
    return this.readText(file, text);
  }

  /** Like {@link read}, for text already read (`file` names it in messages and tells JSON from YAML by extension). */
  async readText(file: string, text: string): Promise<{ graph?: CompiledGraph; issues: GraphIssue[] }> {
    const doc = parseGraphDocument(text, file);
    if (!doc.ok) return { issues: doc.errors.map((e) => ({ message: e.message, position: e.position })) };

    // Every stage runs even when an earlier one found problems, so one pass reports them all (a missing outputSchema
    // does not hide a JSONata error). normalizeGraphConfig reports rather than throws on malformed input; the later
    // stages are guarded all the same, since they were written for documents that passed the schema.
    const issues = new IssueList();
    const schemaIssues = await this.schemaIssues(doc.value, doc.positionOf);
    issues.add(schemaIssues);
    const schemaOk = schemaIssues.length === 0;
    // A later stage's problem with a tool or node the schema already faulted is the same problem in other words.
    const faulted = new Set(schemaIssues.map((i) => `${i.tool ?? ''}\u0000${i.node ?? ''}`));
    const addLater = (found: readonly GraphIssue[]) => issues.add(found.filter((i) => !faulted.has(`${i.tool ?? ''}\u0000${i.node ?? ''}`)));

    const { config, issues: shapeIssues } = normalizeGraphConfig(doc.value, doc.positionOf);
    config.file = file;
    config.revision = graphFileRevision(text);
    // --mcp-config servers first, the file's own servers win (as mcpgraph -m merges them).
    if (this.options.mcpServers) config.mcpServers = { ...this.options.mcpServers, ...config.mcpServers };
    addLater(shapeIssues);
    try {
      addLater(checkGraph(config));
    } catch (err) {
      if (schemaOk) throw err;
    }
    let compiled: ReturnType<typeof compileGraph> | undefined;
    try {
      compiled = compileGraph(config, this.options);
      addLater(compiled.issues);
    } catch (err) {
      if (schemaOk) throw err;
    }
    if (issues.length > 0 || !compiled) return { issues: issues.all().map((i) => atExpression(i, text)) };
    if (config.tools.length === 0) {
      compiled.graph.warnings.push({ message: 'the file declares no tools: it loads, but serves nothing' });
    }
    return { graph: compiled.graph, issues: [] };
  }

  private async schemaIssues(value: unknown, positionOf: PositionLookup): Promise<GraphIssue[]> {
    if (!this.schemaValidator) {
      const schema = JSON.parse(await fs.readFile(graphSchemaPath(), 'utf8')) as Record<string, unknown>;
      this.schemaValidator = new Ajv({ strict: false, allErrors: true }).compile(schema);
    }
    if (this.schemaValidator(value)) return [];
    const errors = (this.schemaValidator.errors ?? []).filter((e) => e.keyword !== 'if');
    const seen = new Set<string>();
    const issues: GraphIssue[] = [];
    for (const e of errors) {
      const segments = e.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
      const docPath = segments.map((s) => (/^\d+$/.test(s) ? Number(s) : s));
      const message = `${e.instancePath || '(root)'}: ${schemaMessage(e)}`;
      if (seen.has(message)) continue;
      seen.add(message);
      issues.push({ ...whereIn(value, docPath), message, position: positionOf(docPath) });
    }
    return issues;
  }
}

/** A bad expression's issue placed at the offending character of the expression, where the text shows it. */
function atExpression(issue: GraphIssue, text: string): GraphIssue {
  if (!issue.expression || !issue.position) return issue;
  const at = locateExpression(text, issue.position, issue.expression.source, issue.expression.offset);
  return at ? { ...issue, position: at } : issue;
}

/** Issues in the order found, each message reported once per position (stages can find the same problem). */
class IssueList {
  private readonly list: GraphIssue[] = [];
  private readonly seen = new Set<string>();

  get length(): number {
    return this.list.length;
  }

  add(issues: readonly GraphIssue[]): void {
    for (const i of issues) {
      const key = `${i.position?.line ?? ''}:${describeIssue(i)}`;
      if (this.seen.has(key)) continue;
      this.seen.add(key);
      this.list.push(i);
    }
  }

  all(): GraphIssue[] {
    return [...this.list];
  }
}

/** Checks one graph file; every problem as `{file, line, column, message}` (empty when the file is valid). */
export function validateGraphFile(file: string, options: CompileOptions = {}): Promise<GraphFileProblem[]> {
  return new GraphFileLoader(options).check(file);
}

function schemaMessage(e: ErrorObject): string {
  switch (e.keyword) {
    case 'required':
      return `missing required property '${String(e.params.missingProperty)}'`;
    case 'enum':
      return `${e.message} (${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')})`;
    case 'additionalProperties':
      return `unknown property '${String(e.params.additionalProperty)}'`;
    default:
      return e.message ?? 'invalid';
  }
}

/** The tool and node a schema error path points into, so the message can name them. */
function whereIn(doc: unknown, docPath: Array<string | number>): { tool?: string; node?: string } {
  const out: { tool?: string; node?: string } = {};
  let cur: unknown = doc;
  for (let i = 0; i < docPath.length; i++) {
    if (typeof cur !== 'object' || cur === null) break;
    cur = (cur as Record<string | number, unknown>)[docPath[i]!];
    const parentKey = docPath[i - 1];
    if (typeof docPath[i] === 'number' && typeof cur === 'object' && cur !== null) {
      const name = (cur as Record<string, unknown>)[parentKey === 'tools' ? 'name' : 'id'];
      if (typeof name === 'string' && parentKey === 'tools') out.tool = name;
      if (typeof name === 'string' && parentKey === 'nodes') out.node = name;
    }
  }
  return out;
}
