import { inject, injectable } from 'tsyringe';
import type { UseCase } from '../../../../kernel/use-case';
import type { GraphRunSummary } from '../../domain/graph-run-record';
import { GraphTokens } from '../graph.tokens';
import type { GraphRunStore } from '../ports/graph-run-store';
import type { GraphToolCatalog } from '../ports/graph-tool-catalog';

export interface GraphToolSummary {
  name: string;
  description: string;
  file: string;
  nodeCount: number;
  /** False for a tool known only from recorded runs (not served by this process). */
  loaded: boolean;
  /** Recorded runs of the tool. */
  runs: number;
}

/** The graph tools served, plus those named by recorded runs, and the most recent runs. */
@injectable()
export class ListGraphTools implements UseCase<{ recentRuns?: number }, { tools: GraphToolSummary[]; runs: GraphRunSummary[] }> {
  constructor(
    @inject(GraphTokens.GraphHost) private readonly catalog: GraphToolCatalog,
    @inject(GraphTokens.GraphRunStore) private readonly store: GraphRunStore,
  ) {}

  async execute(input: { recentRuns?: number } = {}): Promise<{ tools: GraphToolSummary[]; runs: GraphRunSummary[] }> {
    const all = await this.store.list();
    const perTool = new Map<string, number>();
    for (const r of all) perTool.set(r.tool, (perTool.get(r.tool) ?? 0) + 1);
    const tools: GraphToolSummary[] = this.catalog.listTools().map((t) => ({
      name: t.name,
      description: t.description,
      file: t.file ?? '(in-memory graph)',
      nodeCount: this.catalog.toolDefinition(t.name)?.tool.nodes.length ?? 0,
      loaded: true,
      runs: perTool.get(t.name) ?? 0,
    }));
    const served = new Set(tools.map((t) => t.name));
    for (const [name, runs] of perTool) {
      if (served.has(name)) continue;
      tools.push({ name, description: '', file: '(from recorded runs)', nodeCount: 0, loaded: false, runs });
    }
    tools.sort((a, b) => a.name.localeCompare(b.name));
    return { tools, runs: all.slice(0, input.recentRuns ?? 20) };
  }
}
