import type { CallContext } from '../../../../kernel/call-context';
import type { KnowledgeStore } from '../ports/knowledge-store';
import type { Logger } from '../../../../kernel/logger';
import { systemClock, type Clock } from '../../../../kernel/clock';
import {
  extractiveSummary,
  recalculatedSummary,
  remainingSegment,
  summaryPrompt,
  type StoredKnowledgeNode,
} from '../../domain';
import { KnowledgeMessages } from '../services/knowledge-messages';

/** What became of one summary affected by a deletion. */
export interface SummaryRecalculation {
  summaryId: string;
  /**
   * `recalculated`: rewritten from its remaining nodes. `empty`: no node of its segment remains; kept unchanged.
   * `conflict`: the summary changed or disappeared while it was being recalculated; left as it is.
   * `failed`: could not be written (lock, I/O, cancellation). `not_recalculated`: not asked for.
   */
  status: 'recalculated' | 'empty' | 'conflict' | 'failed' | 'not_recalculated';
  /** How the new text was made: the client's LLM (MCP sampling) or the deterministic extractive summary. */
  method: 'sampling' | 'extractive' | null;
  remainingNodeIds: string[];
  message: string;
}

/** Tokens asked of the client's LLM for one summary. */
export const SUMMARY_MAX_TOKENS = 800;

/**
 * Recalculates summaries after a deletion. Texts are made OUTSIDE the project lock (sampling can take minutes); each
 * is then written back with a compare-and-swap under the lock: only when the summary's thought and segment are still
 * what the recalculation started from. A helper of DeleteNodes, not a tool of its own.
 */
export class RecalculateSummaries {
  constructor(
    private readonly store: KnowledgeStore,
    private readonly logger: Logger,
    private readonly clock: Clock = systemClock,
  ) {}

  /**
   * The prompts a recalculation of `summaries` would give the client's LLM (one per summary with remaining nodes): what
   * a modern call asks its client for before the delete (input_required), so that the retry's sampler answers them.
   */
  async prompts(
    input: { project: string; deleted: ReadonlySet<string>; summaries: readonly StoredKnowledgeNode[] },
    signal?: AbortSignal,
  ): Promise<Array<{ summaryId: string; systemPrompt: string; prompt: string }>> {
    const wanted = new Set<string>();
    for (const s of input.summaries) for (const id of remainingSegment(s, input.deleted)) wanted.add(id);
    const sources = await this.store.reader(input.project).findByIds(wanted, signal);
    const out: Array<{ summaryId: string; systemPrompt: string; prompt: string }> = [];
    for (const s of input.summaries) {
      const nodes = remainingSegment(s, input.deleted)
        .filter((id) => sources.has(id))
        .map((id) => sources.get(id)!);
      if (nodes.length) out.push({ summaryId: s.id, ...summaryPrompt(s.thought, nodes) });
    }
    return out;
  }

  async execute(
    input: { project: string; deleted: ReadonlySet<string>; summaries: readonly StoredKnowledgeNode[] },
    ctx?: CallContext,
  ): Promise<SummaryRecalculation[]> {
    const { project, deleted } = input;
    const results = new Map<string, SummaryRecalculation>();
    const pending = new Map<string, { expected: StoredKnowledgeNode; remaining: string[]; text: string }>();
    const wanted = new Set<string>();
    for (const s of input.summaries) for (const id of remainingSegment(s, deleted)) wanted.add(id);
    const sources = await this.store.reader(project).findByIds(wanted, ctx?.signal);

    let done = 0;
    for (const s of input.summaries) {
      const remaining = remainingSegment(s, deleted).filter((id) => sources.has(id));
      if (remaining.length === 0) {
        results.set(s.id, {
          summaryId: s.id,
          status: 'empty',
          method: null,
          remainingNodeIds: [],
          message: KnowledgeMessages.summaryEmpty(s.id),
        });
        continue;
      }
      const nodes = remaining.map((id) => sources.get(id)!);
      let method: 'sampling' | 'extractive' = 'extractive';
      let text: string | undefined;
      let note = '';
      if (ctx?.sampler && !ctx.signal.aborted) {
        try {
          const { systemPrompt, prompt } = summaryPrompt(s.thought, nodes);
          const answer = (await ctx.sampler.complete({ systemPrompt, prompt, maxTokens: SUMMARY_MAX_TOKENS }, ctx.signal)).trim();
          if (answer) {
            text = answer;
            method = 'sampling';
          } else note = KnowledgeMessages.samplingEmpty;
        } catch (e) {
          note = KnowledgeMessages.samplingFailed((e as Error).message);
        }
      }
      if (ctx?.signal.aborted) {
        results.set(s.id, failed(s.id, remaining, 'cancelled'));
        continue;
      }
      text ??= extractiveSummary(nodes);
      pending.set(s.id, { expected: s, remaining, text });
      results.set(s.id, {
        summaryId: s.id,
        status: 'recalculated',
        method,
        remainingNodeIds: remaining,
        message: KnowledgeMessages.summaryRecalculated(s.id, remaining.length, method, note),
      });
      ctx?.progress(++done, input.summaries.length, `summary ${s.id}`);
    }

    if (pending.size) {
      try {
        const applied = new Set(
          await this.store.withLock(project, (graph) =>
            graph.updateNodes(new Set(pending.keys()), (node) => {
              const p = pending.get(node.id)!;
              if (node.thought !== p.expected.thought || !sameIds(node.summarizedSegment, p.expected.summarizedSegment)) return undefined;
              // The previous text and segment are kept in the summary's history: restoring the nodes brings them back.
              return recalculatedSummary(node, p.text, p.remaining, [...deleted], new Date(this.clock.now()).toISOString());
            }),
          ),
        );
        for (const id of pending.keys()) {
          if (!applied.has(id)) {
            results.set(id, {
              summaryId: id,
              status: 'conflict',
              method: results.get(id)!.method,
              remainingNodeIds: pending.get(id)!.remaining,
              message: KnowledgeMessages.summaryConflict(id),
            });
          }
        }
      } catch (e) {
        for (const [id, p] of pending) results.set(id, failed(id, p.remaining, (e as Error).message));
      }
    }
    for (const r of results.values()) {
      this.logger.info('knowledge summary recalculation', { project, summaryId: r.summaryId, status: r.status, method: r.method });
    }
    return input.summaries.map((s) => results.get(s.id)!);
  }
}

function failed(id: string, remaining: string[], why: string): SummaryRecalculation {
  return { summaryId: id, status: 'failed', method: null, remainingNodeIds: remaining, message: KnowledgeMessages.summaryFailed(id, why) };
}

function sameIds(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}
