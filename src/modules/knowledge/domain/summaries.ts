import type { StoredKnowledgeNode } from './knowledge-node';

/** True when `node` is a summary whose `summarizedSegment` names one of `deleted`. */
export function summarizesAny(node: StoredKnowledgeNode, deleted: ReadonlySet<string>): boolean {
  return node.role === 'summary' && Array.isArray(node.summarizedSegment) && node.summarizedSegment.some((id) => deleted.has(id));
}

/** The segment of a summary without the deleted ids, order kept. */
export function remainingSegment(node: StoredKnowledgeNode, deleted: ReadonlySet<string>): string[] {
  return (node.summarizedSegment ?? []).filter((id) => !deleted.has(id));
}

/** Default caps of the extractive summary: per node sentence and whole text, in characters. */
export const EXTRACTIVE_SENTENCE_MAX = 240;
export const EXTRACTIVE_TOTAL_MAX = 4_000;

/**
 * A deterministic extractive summary of `nodes` (in the given order): one bullet per node holding the first sentence
 * of its thought (whitespace collapsed, capped at {@link EXTRACTIVE_SENTENCE_MAX}), duplicates dropped, the whole
 * capped at {@link EXTRACTIVE_TOTAL_MAX}. The same input always gives the same text (no model, no clock).
 */
export function extractiveSummary(nodes: readonly Pick<StoredKnowledgeNode, 'id' | 'thought'>[]): string {
  const seen = new Set<string>();
  const bullets: string[] = [];
  for (const node of nodes) {
    const sentence = firstSentence(node.thought);
    if (!sentence || seen.has(sentence)) continue;
    seen.add(sentence);
    bullets.push(`- ${sentence}`);
  }
  let text = `Summary of ${nodes.length} node(s):\n${bullets.join('\n')}`;
  if (text.length > EXTRACTIVE_TOTAL_MAX) text = `${text.slice(0, EXTRACTIVE_TOTAL_MAX - 1)}…`;
  return text;
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
