import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { AlreadyExistsError, ConflictError, InvalidArgumentsError, InvalidGraphError, NotFoundError } from '../../../kernel/errors';
import { withFileLock, writeFileAtomic } from '../../../kernel/files';
import type { CompiledGraph } from '../application/engine/compiled-graph';
import type { GraphFileChanged, GraphFileEditor, GraphToolChange } from '../application/ports/graph-file-editor';
import { argumentReadings, readingAlone, toolSpellings } from '../domain/graph-tool-arguments';
import { describeIssue, type GraphIssue } from '../domain/graph-issue';
import { parseGraphDocument } from './graph-document';
import { convertOlderFormat } from './graph-file-older-convert';
import { editToolList, type ToolListEdit } from './graph-file-text-edit';
import { graphFileRevision } from './graph-file-revision';
import type { GraphHost } from './graph-host';

const GRAPH_FILE = /\.(ya?ml|json)$/i;
/** Problems an error message lists before "and N more". */
const LISTED_PROBLEMS = 5;

/**
 * The {@link GraphFileEditor} over the files of `--graphs`: each change under a lock of its own (in the data dir, so
 * two workgraph processes sharing it take turns), the revision compared with the file on disk, an older-format file
 * converted to the nested format first (graph-file-older-convert.ts), the tool list edited in place
 * (graph-file-text-edit.ts), the new text checked by the host's loader and against the other served files'
 * tool names, and written with the kernel's writeFileAtomic (the file's permissions kept).
 */
export class GraphFileAuthor implements GraphFileEditor {
  constructor(
    private readonly host: GraphHost,
    private readonly graphPaths: readonly string[],
    private readonly lockRoot: string,
  ) {}

  async locate(file: string, field: string): Promise<string> {
    if (file.includes('\0')) throw new InvalidArgumentsError(`${field}: the path contains a NUL byte`, field);
    const loaded = this.host.graphs().map((g) => g.config.file!).filter(Boolean);
    const named = path.isAbsolute(file) ? file : (loaded.find((f) => f.endsWith(`${path.sep}${file}`)) ?? (await this.inFolders(file)));
    const real = named === undefined ? undefined : await fs.realpath(named).catch(() => undefined);
    if (real === undefined) throw new NotFoundError('graph file', file);
    if (!(await this.served(real))) {
      throw new InvalidArgumentsError(
        `${field}: '${real}' is not a graph file this server serves (--graphs: ${this.graphPaths.join(', ') || 'none'}); the authoring tools change only those`,
        field,
      );
    }
    return real;
  }

  async change(file: string, revision: string, change: GraphToolChange): Promise<GraphFileChanged> {
    const lockDir = path.join(this.lockRoot, createHash('sha256').update(file).digest('hex').slice(0, 24));
    return withFileLock(lockDir, async (lock) => {
      const text = await fs.readFile(file, 'utf8');
      const current = graphFileRevision(text);
      if (current !== revision) {
        throw new ConflictError(
          `${file} changed since revision ${revision} was read (it is at ${current} now): read it again (graph_server or graph_tool_get) and make the change on what it holds now`,
          { file, revision, current },
        );
      }
      const base = this.nestedText(file, text);
      const next = this.changedText(file, base.text, change);
      const graph = await this.checked(file, next);
      this.host.checkServable(file, graph);
      lock.assertHeld();
      const { mode } = await fs.stat(file);
      await writeFileAtomic(file, next, { mode: mode & 0o777 });
      return {
        file,
        revision: graphFileRevision(next),
        tools: graph.config.tools.map((t) => t.name),
        warnings: [
          ...(base.converted ? [`${file}: converted from mcpgraph's older format (one top-level nodes list) to the nested one: each tool's nodes now under tools[].nodes, servers under mcpServers; comments and the other lines kept`] : []),
          ...graph.warnings.map((w) => `${file}:${w.position?.line ?? 1}:${w.position?.column ?? 1}: ${describeIssue(w)}`),
        ],
      };
    });
  }

  async draft(file: string | undefined, tool: Record<string, unknown>): Promise<CompiledGraph> {
    if (file === undefined) {
      const graph = await this.checked('(inline tool).json', JSON.stringify({ server: { name: 'inline', version: '0.0.0' }, tools: [tool] }, null, 2));
      delete graph.config.file; // an in-memory graph: its runs name no file
      return graph;
    }
    const { text } = this.nestedText(file, await fs.readFile(file, 'utf8'));
    const raw = this.toolsIn(file, text);
    const index = raw.findIndex((t) => t.name === tool.name);
    const change: GraphToolChange = index < 0 ? { kind: 'add', tool } : { kind: 'update', name: String(tool.name), tool };
    return this.checked(file, this.changedText(file, text, change));
  }

  /** The text of `file` with `change` made, each tool meaning what it meant (see graph-tool-arguments.ts). */
  private changedText(file: string, text: string, change: GraphToolChange): string {
    const tools = this.toolsIn(file, text);
    const parsedBefore = parseGraphDocument(text, file);
    const before = argumentReadings(parsedBefore.ok ? parsedBefore.value : {});
    const index = change.kind === 'add' ? -1 : tools.findIndex((t) => t.name === change.name);
    if (change.kind !== 'add' && index < 0) {
      throw new NotFoundError('graph tool', change.name, `graph tool '${change.name}' is not declared in ${file} (it declares: ${tools.map((t) => t.name).join(', ') || 'no tools'})`);
    }
    if (change.kind !== 'delete') {
      const clash = tools.findIndex((t) => t.name === change.tool.name);
      if (clash >= 0 && clash !== index) {
        throw new AlreadyExistsError('graph tool', String(change.tool.name), `${file} declares it already: change it with graph_tool_update, or choose another name`);
      }
    }
    const edited = change.kind === 'delete' ? undefined : change.tool;
    const keep = (name: string) => change.kind === 'add' || name !== change.name;
    const spellings = edited ? toolSpellings(edited) : [undefined];
    const meant = edited ? readingAlone(edited) : undefined;
    for (const spelling of spellings) {
      const edit: ToolListEdit = spelling === undefined ? { kind: 'remove', index } : index < 0 ? { kind: 'add', tool: spelling } : { kind: 'replace', index, tool: spelling };
      const next = editToolList(text, file, edit);
      const parsed = parseGraphDocument(next, file);
      if (!parsed.ok) continue;
      const after = argumentReadings(parsed.value);
      const othersKept = [...before].every(([name, reading]) => !keep(name) || after.get(name) === reading);
      if (othersKept && (edited === undefined || after.get(String(edited.name)) === meant)) return next;
    }
    throw new InvalidArgumentsError(
      `${change.kind === 'delete' ? 'name' : 'tool'}: this change cannot be written to ${file} without changing what some mcp node's arguments mean: one rule holds for the whole file (mcpgraph's: once any mcp argument is an {expr} object, {expr} is JSONata and $-strings are text; else a string starting with $ is JSONata), and its other tools rely on it. Start each JSONata argument with $ and give no literal argument starting with $, or use another file`,
      change.kind === 'delete' ? 'name' : 'tool',
    );
  }

  /** The file's text in the nested or newest format: an older-format file converted (graph-file-older-convert.ts). */
  private nestedText(file: string, text: string): { text: string; converted: boolean } {
    const root = this.rootOf(file, text);
    return Array.isArray(root.nodes) ? { text: convertOlderFormat(text, file), converted: true } : { text, converted: false };
  }

  private rootOf(file: string, text: string): Record<string, unknown> {
    const doc = parseGraphDocument(text, file);
    if (!doc.ok) {
      const e = doc.errors[0]!;
      throw new InvalidGraphError(`${file}:${e.position.line}:${e.position.column}: ${e.message} (fix the file first: it does not parse)`, { file, line: e.position.line });
    }
    return (doc.value && typeof doc.value === 'object' ? doc.value : {}) as Record<string, unknown>;
  }

  /** The raw tool entries of a file in the nested or newest format. */
  private toolsIn(file: string, text: string): Array<Record<string, unknown>> {
    const root = this.rootOf(file, text);
    if (root.tools !== undefined && root.tools !== null && !Array.isArray(root.tools)) throw new InvalidGraphError(`${file}: 'tools' is not a list`, { file });
    return ((root.tools as unknown[] | undefined) ?? []).filter((t): t is Record<string, unknown> => !!t && typeof t === 'object' && !Array.isArray(t));
  }

  /** The new text compiled with every check of a load, or an InvalidGraphError listing the problems (file:line:col). */
  private async checked(file: string, text: string): Promise<CompiledGraph> {
    const { graph, issues } = await this.host.checkText(file, text);
    if (graph && issues.length === 0) return graph;
    const at = (i: GraphIssue) => `${file}:${i.position?.line ?? 1}:${i.position?.column ?? 1}: ${describeIssue(i)}`;
    const more = issues.length > LISTED_PROBLEMS ? ` (and ${issues.length - LISTED_PROBLEMS} more)` : '';
    const first = issues[0];
    throw new InvalidGraphError(`the file would not load, nothing was written: ${issues.slice(0, LISTED_PROBLEMS).map(at).join('; ')}${more}`, {
      file,
      ...(first?.tool !== undefined ? { tool: first.tool } : {}),
      ...(first?.node !== undefined ? { node: first.node } : {}),
      ...(first?.position ? { line: first.position.line } : {}),
    });
  }

  /** Whether `real` is a file `--graphs` names, or a graph file directly inside a folder it names. */
  private async served(real: string): Promise<boolean> {
    for (const p of this.graphPaths) {
      const target = await fs.realpath(path.resolve(p)).catch(() => undefined);
      if (target === undefined) continue;
      if (target === real) return true;
      if (GRAPH_FILE.test(real) && path.dirname(real) === target && (await fs.stat(target)).isDirectory()) return true;
    }
    return false;
  }

  /** `name` inside a `--graphs` folder (a file not loaded, e.g. one whose last edit broke it). */
  private async inFolders(name: string): Promise<string | undefined> {
    for (const p of this.graphPaths) {
      const candidate = path.join(path.resolve(p), name);
      if (await fs.stat(candidate).then((s) => s.isFile(), () => false)) return candidate;
    }
    return undefined;
  }
}
