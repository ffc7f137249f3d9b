import * as path from 'node:path';
import { inject, injectable } from 'tsyringe';
import { NotFoundError } from '../../../../../kernel/errors';
import type { CallContext } from '../../../../../kernel/call-context';
import type { PathPolicy } from '../../../../../kernel/path-policy';
import { Tokens } from '../../../../../kernel/tokens';
import type { UseCase } from '../../../../../kernel/use-case';
import type { ToolInput, ToolOutput } from '../../../../../kernel/tools/tool-schema';
import { GraphTokens } from '../../graph.tokens';
import type { graphToolAddSchemas, graphToolDeleteSchemas, graphToolUpdateSchemas } from '../../graph-tool-edit.tool-schemas';
import type { GraphFileEditor, GraphFileSync, GraphToolChange } from '../../ports/graph-file-editor';
import type { GraphToolCatalog } from '../../ports/graph-tool-catalog';

type AddInput = ToolInput<typeof graphToolAddSchemas>;
type UpdateInput = ToolInput<typeof graphToolUpdateSchemas>;
type DeleteInput = ToolInput<typeof graphToolDeleteSchemas>;
type ChangedOutput = ToolOutput<typeof graphToolAddSchemas>;

/**
 * The writes of the authoring tools (mcpgraph's addGraphTool, updateGraphTool, deleteGraphTool): the file must be one
 * `--graphs` names and lie inside the caller's allowed roots; the change is made when the file still has the revision
 * the caller read, checked before anything is written, written atomically, and the file reloaded at once (the served
 * list changes: tools/list_changed).
 */
@injectable()
class GraphFileChanges {
  constructor(
    @inject(GraphTokens.GraphHost) readonly catalog: GraphToolCatalog,
    @inject(GraphTokens.GraphFileEditor) private readonly editor: GraphFileEditor,
    @inject(GraphTokens.GraphFileSync) private readonly sync: GraphFileSync,
    @inject(Tokens.PathPolicy) private readonly paths: PathPolicy,
  ) {}

  /** The real path of a file an agent named, once it is known to be writable by this caller. */
  async writable(file: string, field: string, ctx: CallContext | undefined): Promise<string> {
    const real = await this.editor.locate(file, field);
    // The folder must lie inside the caller's roots (PathNotAllowedError otherwise).
    await this.paths.resolveAllowedDirectory(path.dirname(real), field, { clientRoots: ctx?.clientRoots, identity: ctx?.identity });
    return real;
  }

  /**
   * The file declaring a served tool; one this process does not serve yet is looked for again once the files are
   * brought up to date with the disk (another process may just have added it). @throws NotFoundError for a tool not served.
   */
  async fileOf(name: string): Promise<string> {
    let served = this.catalog.toolDefinition(name);
    if (!served?.file) {
      await this.sync.refresh();
      served = this.catalog.toolDefinition(name);
    }
    if (!served?.file) throw new NotFoundError('graph tool', name);
    return served.file;
  }

  async apply(file: string, revision: string, change: GraphToolChange): Promise<ChangedOutput> {
    const changed = await this.editor.change(file, revision, change);
    await this.sync.reload(file);
    return changed;
  }
}

/** graph_tool_add: a new tool at the end of a graph file's tools. */
@injectable()
export class AddGraphTool implements UseCase<AddInput, ChangedOutput> {
  constructor(@inject(GraphFileChanges) private readonly changes: GraphFileChanges) {}

  async execute(input: AddInput, ctx?: CallContext): Promise<ChangedOutput> {
    const file = await this.changes.writable(input.file, 'file', ctx);
    return this.changes.apply(file, input.revision, { kind: 'add', tool: input.tool as Record<string, unknown> });
  }
}

/** graph_tool_update: a served tool replaced in its file (in place; it may be renamed). */
@injectable()
export class UpdateGraphTool implements UseCase<UpdateInput, ChangedOutput> {
  constructor(@inject(GraphFileChanges) private readonly changes: GraphFileChanges) {}

  async execute(input: UpdateInput, ctx?: CallContext): Promise<ChangedOutput> {
    const file = await this.changes.writable(await this.changes.fileOf(input.name), 'name', ctx);
    return this.changes.apply(file, input.revision, { kind: 'update', name: input.name, tool: input.tool as Record<string, unknown> });
  }
}

/** graph_tool_delete: a served tool removed from its file. */
@injectable()
export class DeleteGraphTool implements UseCase<DeleteInput, ChangedOutput> {
  constructor(@inject(GraphFileChanges) private readonly changes: GraphFileChanges) {}

  async execute(input: DeleteInput, ctx?: CallContext): Promise<ChangedOutput> {
    const file = await this.changes.writable(await this.changes.fileOf(input.name), 'name', ctx);
    return this.changes.apply(file, input.revision, { kind: 'delete', name: input.name });
  }
}
