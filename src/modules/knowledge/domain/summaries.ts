import type { StoredKnowledgeNode, SummaryVersion } from './knowledge-node';

/** True when `node` is a summary whose `summarizedSegment` names one of `deleted`. */
export function summarizesAny(node: StoredKnowledgeNode, deleted: ReadonlySet<string>): boolean {
  return node.role === 'summary' && Array.isArray(node.summarizedSegment) && node.summarizedSegment.some((id) => deleted.has(id));
}

/** The segment of a summary without the deleted ids, order kept. */
export function remainingSegment(node: StoredKnowledgeNode, deleted: ReadonlySet<string>): string[] {
  return (node.summarizedSegment ?? []).filter((id) => !deleted.has(id));
}

/** Default caps of the extractive summary: per node sentence and whole line, in characters. */
export const EXTRACTIVE_SENTENCE_MAX = 240;
export const EXTRACTIVE_TOTAL_MAX = 400;

/**
 * A deterministic extractive summary of `nodes` (in the given order) on one line: the first sentence of each node's
 * thought (whitespace collapsed, capped at {@link EXTRACTIVE_SENTENCE_MAX}), duplicates dropped, joined in order —
 * sentences that end with `.`/`!`/`?` by a space, others by `; ` — the whole capped at {@link EXTRACTIVE_TOTAL_MAX}
 * with an ellipsis. The same input always gives the same text (no model, no clock).
 */
export function extractiveSummary(nodes: readonly Pick<StoredKnowledgeNode, 'id' | 'thought'>[]): string {
  const seen = new Set<string>();
  let text = '';
  for (const node of nodes) {
    const sentence = firstSentence(node.thought);
    if (!sentence || seen.has(sentence)) continue;
    seen.add(sentence);
    if (text) text += /[.!?…]$/.test(text) ? ' ' : '; ';
    text += sentence;
    if (text.length >= EXTRACTIVE_TOTAL_MAX) break;
  }
  return text.length > EXTRACTIVE_TOTAL_MAX ? `${text.slice(0, EXTRACTIVE_TOTAL_MAX - 1)}…` : text;
}

/** How many earlier versions a summary keeps (each recalculation pushes one; a restore pops it back). */
export const SUMMARY_HISTORY_MAX = 20;

/**
 * A summary rewritten after a deletion: the new text and segment, and the previous ones pushed on its history with
 * the deleted ids that caused the change, so restoring those nodes can bring the previous version back.
 */
export function recalculatedSummary(
  node: StoredKnowledgeNode,
  text: string,
  remaining: readonly string[],
  deletedIds: readonly string[],
  at: string,
): StoredKnowledgeNode {
  const entry: SummaryVersion = {
    thought: node.thought,
    summarizedSegment: [...(node.summarizedSegment ?? [])],
    deletedNodeIds: (node.summarizedSegment ?? []).filter((id) => deletedIds.includes(id)),
    replacedAt: at,
  };
  const history = [...(node.summaryHistory ?? []), entry].slice(-SUMMARY_HISTORY_MAX);
  return { ...node, thought: text, summarizedSegment: [...remaining], summaryHistory: history };
}

/**
 * The summary after some deleted nodes came back: while the newest history entry's deleted ids are all present
 * again (`present`), that version is restored (text and segment) and popped. Undefined when nothing changes.
 */
export function restoredSummary(node: StoredKnowledgeNode, present: (id: string) => boolean): StoredKnowledgeNode | undefined {
  const history = [...(node.summaryHistory ?? [])];
  let current: StoredKnowledgeNode | undefined;
  while (history.length) {
    const last = history[history.length - 1]!;
    if (!last.deletedNodeIds.every(present)) break;
    history.pop();
    current = { ...(current ?? node), thought: last.thought, summarizedSegment: [...last.summarizedSegment] };
  }
  if (!current) return undefined;
  if (history.length) current.summaryHistory = history;
  else delete current.summaryHistory;
  return current;
}

/** True when `node` is a summary whose history waits for one of `ids` to come back. */
export function summaryAwaits(node: StoredKnowledgeNode, ids: ReadonlySet<string>): boolean {
  return node.role === 'summary' && (node.summaryHistory ?? []).some((v) => v.deletedNodeIds.some((id) => ids.has(id)));
}

function firstSentence(thought: string): string {
  const flat = thought.replace(/\s+/g, ' ').trim();
  const match = /^.*?[.!?](?=\s|$)/.exec(flat);
  const sentence = match ? match[0] : flat;
  return sentence.length > EXTRACTIVE_SENTENCE_MAX ? `${sentence.slice(0, EXTRACTIVE_SENTENCE_MAX - 1)}…` : sentence;
}

/** The prompt asking a client's LLM (MCP sampling) to rewrite a summary from its remaining nodes. */
export function summaryPrompt(previous: string, nodes: readonly Pick<StoredKnowledgeNode, 'id' | 'thought'>[]): {
  systemPrompt: string;
  prompt: string;
} {
  const perNode = Math.max(200, Math.floor(12_000 / Math.max(1, nodes.length)));
  const body = nodes.map((n) => `[${n.id}]\n${n.thought.length > perNode ? `${n.thought.slice(0, perNode)}…` : n.thought}`);
  return {
    systemPrompt:
      'You summarize segments of an AI agent\'s knowledge graph. Answer with the summary text only: concise, factual, no preamble.',
    prompt:
      `Some nodes of this summary were deleted. Rewrite the summary so it covers exactly the remaining nodes below.\n\n` +
      `Previous summary:\n${previous}\n\nRemaining nodes (${nodes.length}):\n\n${body.join('\n\n')}`,
  };
}
