import { inject, injectable } from 'tsyringe';
import { resolveInReach } from '../services/knowledge-reach';
import { Tokens } from '../../../../kernel/tokens';
import { KnowledgeTokens } from '../knowledge.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import type { Clock } from '../../../../kernel/clock';
import type { KnowledgeStore, MalformedReport } from '../ports/knowledge-store';
import type { Logger } from '../../../../kernel/logger';
import { NotFoundError } from '../../../../kernel/errors';
import { dependentCountsPerRoot, toDependentInfo, type DeletedNodeRecord } from '../../domain';
import type { UseCase } from '../../../../kernel/use-case';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { deleteNodesSchemas } from '../knowledge.tool-schemas';
import { RecalculateSummaries, SUMMARY_MAX_TOKENS, type SummaryRecalculation } from './recalculate-summaries';
import { KnowledgeMessages } from '../services/knowledge-messages';
import { canAsk, InputRequest, type InputQuestion } from '../../../../kernel/call-input';

/** The key of the dependents confirmation asked through input_required. */
export const CONFIRM_DEPENDENTS_KEY = 'confirm_delete_dependents';

/** The tool's input, as its schema in knowledge.tool-schemas.ts describes it. */
export type DeleteNodesInput = ToolInput<typeof deleteNodesSchemas>;
/**
 * The tool's answer, as its output schema describes it: what was deleted, the dependents that stopped it, the
 * affected summaries and what became of them, and one sentence saying what happened and what to do next.
 */
export type DeleteNodesOutput = ToolOutput<typeof deleteNodesSchemas>;

/**
 * `delete_nodes`: soft delete with dependents confirmation (docs/knowledge-graph.md).
 *
 * Under the project lock: the store finds the nodes and their dependents (every node outside the set that descends
 * from it through `parents`). Unknown ids → NotFoundError, nothing deleted. Dependents → `success: false` listing
 * them, nothing deleted — unless the caller can be asked (modern era, `ctx.input`): then the person confirms deleting
 * the nodes with their dependents (input_required; the answer is bound to exactly these ids and dependents), and a
 * yes deletes them all; with `recalculateSummaries`, a client that can sample is asked for the summaries' new texts in
 * the same round, before anything changes. Otherwise the store deletes with a backup (records kept for restore_nodes, the nodes' ids
 * dropped from other nodes' `parents`). Summary recalculation (when asked) runs after the lock is released.
 */
@injectable()
export class DeleteNodes implements UseCase<DeleteNodesInput, DeleteNodesOutput> {
  private readonly recalculator: RecalculateSummaries;

  constructor(
    @inject(KnowledgeTokens.KnowledgeStore) private readonly store: KnowledgeStore,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.Logger) private readonly logger: Logger,
  ) {
    this.recalculator = new RecalculateSummaries(store, logger, clock);
  }

  async execute(input: DeleteNodesInput, ctx?: CallContext): Promise<DeleteNodesOutput> {
    const { id: project, shown } = await resolveInReach(this.store, input.projectContext, ctx);
    const ids = [...new Set(input.nodeIds)];
    const reason = input.reason ?? null;
    const signal = ctx?.signal;

    const outcome = await this.store.withLock(project, async (graph) => {
      const { found, dependents } = await graph.findDependents(ids, signal);
      const unknown = ids.filter((id) => !found.has(id));
      if (unknown.length) {
        throw new NotFoundError(
          'knowledge node',
          unknown.join(', '),
          `knowledge node(s) not found in project '${shown}': ${unknown.join(', ')}; nothing was deleted`,
        );
      }
      let deleting = ids;
      const questions: InputQuestion[] = [];
      let subject = JSON.stringify({ project, ids: [...ids].sort() });
      if (dependents.size) {
        if (!canAsk(ctx?.input, 'confirm')) return { kind: 'dependents' as const, dependents };
        // The answer counts only for this set and these dependents: one added meanwhile is asked about again.
        const dependentIds = [...dependents.keys()].sort();
        subject = JSON.stringify({ project, ids: [...ids].sort(), dependents: dependentIds });
        const answer = ctx.input.answer(CONFIRM_DEPENDENTS_KEY, subject);
        if (!answer) questions.push({ key: CONFIRM_DEPENDENTS_KEY, kind: 'confirm', question: KnowledgeMessages.confirmDeleteWithDependents(ids, dependentIds) });
        else if (!answer.accepted) return { kind: 'declined' as const, dependents };
        for (const [id, node] of dependents) found.set(id, node);
        deleting = [...ids, ...dependentIds];
      }
      // Sampled summaries (modern era): asked for before anything changes, in the same round as the confirmation; the
      // retry's ctx.sampler answers the recalculation with them (the extractive summary where one is missing).
      if (input.recalculateSummaries && canAsk(ctx?.input, 'sample') && !ctx.input.retried) {
        const affected = (await graph.findSummariesMentioning(new Set(deleting), signal)).filter((s) => (s.summarizedSegment ?? []).some((id) => deleting.includes(id)));
        const prompts = await this.recalculator.prompts({ project, deleted: new Set(deleting), summaries: affected }, signal);
        for (const p of prompts) questions.push({ key: `summary_${questions.length}`, kind: 'sample', systemPrompt: p.systemPrompt, prompt: p.prompt, maxTokens: SUMMARY_MAX_TOKENS });
      }
      if (questions.length) throw new InputRequest(questions, subject);
      // From here on the graph changes: no cancellation until it is consistent again (deleteWithBackup is all or nothing).
      const timestamp = new Date(this.clock.now()).toISOString();
      const records: DeletedNodeRecord[] = deleting.map((id) => ({ nodeId: id, project, reason, timestamp, nodeData: found.get(id)! }));
      const report = await graph.deleteWithBackup(records);
      this.logger.info('knowledge backup created', { project, backupPath: report.backupPath, pruned: report.pruned });
      return { kind: 'deleted' as const, report, deleting };
    });

    if (outcome.kind === 'dependents' || outcome.kind === 'declined') {
      const counts = dependentCountsPerRoot(ids, new Map([...outcome.dependents].map(([id, n]) => [id, n.parents])));
      const warnings = ids.filter((id) => (counts.get(id) ?? 0) > 0).map((id) => KnowledgeMessages.dependentsOf(id, counts.get(id)!));
      this.logger.info('knowledge delete refused: dependents found', {
        project,
        nodeIds: ids,
        dependents: [...outcome.dependents.keys()].slice(0, 100),
        dependentCount: outcome.dependents.size,
        reason,
      });
      return {
        success: false,
        deletedNodeIds: [],
        dependentNodes: [...outcome.dependents.values()].map(toDependentInfo),
        warnings,
        backupPath: null,
        summaries: [],
        message: outcome.kind === 'declined' ? KnowledgeMessages.deleteDeclined(outcome.dependents.size) : KnowledgeMessages.deleteRefused(outcome.dependents.size),
      };
    }

    const { report } = outcome;
    const deletedIds = outcome.deleting;
    const { backupPath, summaries: affected } = report;
    this.logger.info('knowledge nodes deleted', { project, nodeIds: deletedIds, reason, backupPath });
    const warnings = malformedWarnings(report, this.store.location(project));
    if (report.malformedCount) this.logger.warn('knowledge graph has malformed lines (kept)', { project, count: report.malformedCount });

    let summaries: SummaryRecalculation[] = [];
    if (affected.length && input.recalculateSummaries) {
      summaries = await this.recalculator.execute({ project, deleted: new Set(deletedIds), summaries: affected }, ctx);
      for (const s of summaries) if (s.status !== 'recalculated') warnings.push(s.message);
    } else if (affected.length) {
      summaries = affected.map((s) => ({
        summaryId: s.id,
        status: 'not_recalculated' as const,
        method: null,
        remainingNodeIds: (s.summarizedSegment ?? []).filter((id) => !deletedIds.includes(id)),
        message: KnowledgeMessages.summaryNotRecalculated(s.id),
      }));
      for (const s of summaries) warnings.push(s.message);
    }
    return {
      success: true,
      deletedNodeIds: deletedIds,
      dependentNodes: [],
      warnings,
      backupPath,
      summaries,
      message: KnowledgeMessages.deleted(deletedIds.length),
    };
  }
}

function malformedWarnings(report: MalformedReport, file: string): string[] {
  const out = report.malformed.map((m) => KnowledgeMessages.malformedLine(m.line, file, m.excerpt));
  if (report.malformedCount > report.malformed.length) {
    out.push(KnowledgeMessages.moreMalformedLines(report.malformedCount - report.malformed.length, file));
  }
  return out;
}
