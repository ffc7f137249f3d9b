/**
 * Knowledge graph model (spec/knowledge-node.schema.json is the schema of the same shapes).
 *
 * A project's graph is a DAG of thoughts linked child → parent through `parents`. The file stores nodes WITHOUT
 * `children`: they are derived from the other nodes' `parents` whenever nodes are read, so adding a node only ever
 * appends a line.
 */

export const KNOWLEDGE_ROLES = ['actor', 'critic', 'summary'] as const;
export type KnowledgeRole = (typeof KNOWLEDGE_ROLES)[number];

/** A critic's verdict on its `target` (the CodeLoops vocabulary). */
export const KNOWLEDGE_VERDICTS = ['approved', 'needs_revision', 'reject'] as const;
export type KnowledgeVerdict = (typeof KNOWLEDGE_VERDICTS)[number];

/** A file or resource a thought refers to. */
export interface ArtifactRef {
  name: string;
  path?: string;
  uri?: string;
  contentType?: string;
}

/** A node as stored on one line of `knowledge_graph.ndjson` (no `children`). */
export interface StoredKnowledgeNode {
  id: string;
  /** The project id (safe slug of the last segment of `projectContext`). */
  project: string;
  projectContext: string;
  thought: string;
  role: KnowledgeRole;
  tags: string[];
  artifacts: ArtifactRef[];
  /** Ids of the nodes this one builds on; each existed when the node was added. */
  parents: string[];
  /** ISO 8601 time of creation. */
  createdAt: string;
  verdict?: KnowledgeVerdict;
  verdictReason?: string;
  verdictReferences?: string[];
  /** Id of the node a critic reviews. */
  target?: string;
  /** For summaries: ids of the nodes summarized. */
  summarizedSegment?: string[];
  /**
   * For summaries recalculated after deletions: the versions they replaced, oldest first (at most 20). Restoring the
   * deleted nodes of the newest entry brings that version back.
   */
  summaryHistory?: SummaryVersion[];
  /** Who added it: the identity's name and the agent's client name (nodes added before identities have none). */
  actor?: { name: string; client?: string };
}

/** An earlier text and segment of a summary, replaced when some of its nodes were deleted. */
export interface SummaryVersion {
  thought: string;
  summarizedSegment: string[];
  /** The deleted ids that caused the recalculation: when they all exist again, this version is restored. */
  deletedNodeIds: string[];
  /** ISO 8601 time of the recalculation. */
  replacedAt: string;
}

/** A node as answered: the stored node plus `children` derived from the other nodes' `parents`. */
export interface KnowledgeNode extends StoredKnowledgeNode {
  children: string[];
}

/** One line of `knowledge_graph.deleted.ndjson`: a soft-deleted node and why. */
export interface DeletedNodeRecord {
  nodeId: string;
  project: string;
  /** The caller's reason, or null when none was given. */
  reason: string | null;
  /** ISO 8601 time of deletion. */
  timestamp: string;
  /** The node as it was stored when deleted (no `children`). */
  nodeData: StoredKnowledgeNode;
}

/** A `list_nodes` entry. */
export interface KnowledgeNodeBrief {
  id: string;
  role: KnowledgeRole;
  tags: string[];
  createdAt: string;
  /** First non-empty line of the thought, at most {@link BRIEF_THOUGHT_MAX} characters. */
  thought: string;
}

/** A node that blocks a deletion because it descends from a node being deleted. */
export interface DependentNodeInfo {
  nodeId: string;
  thought: string;
  tags: string[];
  role: KnowledgeRole;
  createdAt: string;
}

/** Default cap on the thought shown in brief entries. */
export const BRIEF_THOUGHT_MAX = 200;

/** First non-empty line of `text`, capped at `max` characters (an ellipsis marks the cut). */
export function firstLine(text: string, max = BRIEF_THOUGHT_MAX): string {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '')?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function toBrief(node: StoredKnowledgeNode): KnowledgeNodeBrief {
  return { id: node.id, role: node.role, tags: node.tags, createdAt: node.createdAt, thought: firstLine(node.thought) };
}

export function toDependentInfo(node: StoredKnowledgeNode): DependentNodeInfo {
  return { nodeId: node.id, thought: node.thought, tags: node.tags, role: node.role, createdAt: node.createdAt };
}

export function withChildren(node: StoredKnowledgeNode, children: readonly string[]): KnowledgeNode {
  return { ...node, children: [...children] };
}

/**
 * Narrows a parsed NDJSON value to a stored node: an object with a string `id` and `thought`, a known role and array
 * `parents`. Anything else is a malformed line (kept in the file as it is and reported, never dropped).
 * Missing optional arrays (`tags`, `artifacts`) are tolerated and defaulted by {@link normalizeStoredNode}.
 */
export function isStoredKnowledgeNode(value: unknown): value is StoredKnowledgeNode {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.id === 'string' &&
    v.id !== '' &&
    typeof v.thought === 'string' &&
    (KNOWLEDGE_ROLES as readonly unknown[]).includes(v.role) &&
    (v.parents === undefined || (Array.isArray(v.parents) && v.parents.every((p) => typeof p === 'string')))
  );
}

/** Fills defaults a hand-edited line may lack (`tags`, `artifacts`, `parents` → []). Returns the same object. */
export function normalizeStoredNode(node: StoredKnowledgeNode): StoredKnowledgeNode {
  if (!Array.isArray(node.tags)) node.tags = [];
  if (!Array.isArray(node.artifacts)) node.artifacts = [];
  if (!Array.isArray(node.parents)) node.parents = [];
  return node;
}

/** True when a parsed value looks like a deletion record. */
export function isDeletedNodeRecord(value: unknown): value is DeletedNodeRecord {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.nodeId === 'string' && typeof v.timestamp === 'string' && isStoredKnowledgeNode(v.nodeData);
}
