import { InvalidArgumentsError } from '../../../kernel/errors';
import {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_PRIORITY,
  DEFAULT_TIMEOUT_MS,
  type TaskMetadataValue,
  type TaskNode,
  type TaskNodeDefinition,
} from './task-graph';
import { TaskStatus } from './task-status';

/** Bounds of a task's metadata (external ids, not a document store): keys, key length, value length, total size. */
export const METADATA_MAX_KEYS = 32;
export const METADATA_MAX_KEY_LENGTH = 64;
export const METADATA_MAX_STRING_LENGTH = 1000;
export const METADATA_MAX_BYTES = 4096;
/** Bounds of a task's tags. */
export const TAGS_MAX = 32;
export const TAG_MAX_LENGTH = 64;

/**
 * Checks a metadata object against the bounds (the tool schemas say the same; this also guards the library API and
 * the total size, which JSON Schema cannot).
 * @throws InvalidArgumentsError naming `field` and what was expected.
 */
export function checkMetadata(metadata: unknown, field: string): void {
  if (metadata === undefined) return;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new InvalidArgumentsError(`${field}: expected an object of string, number or boolean values`, field);
  }
  const entries = Object.entries(metadata as Record<string, unknown>);
  if (entries.length > METADATA_MAX_KEYS) throw new InvalidArgumentsError(`${field}: ${entries.length} keys, at most ${METADATA_MAX_KEYS} allowed`, field);
  for (const [k, v] of entries) {
    if (k.length === 0 || k.length > METADATA_MAX_KEY_LENGTH) throw new InvalidArgumentsError(`${field}: key '${k.slice(0, 80)}' must be 1 to ${METADATA_MAX_KEY_LENGTH} characters`, field);
    if (typeof v === 'string' ? v.length > METADATA_MAX_STRING_LENGTH : typeof v !== 'number' && typeof v !== 'boolean') {
      throw new InvalidArgumentsError(`${field}.${k}: expected a string of at most ${METADATA_MAX_STRING_LENGTH} characters, a number or a boolean`, `${field}.${k}`);
    }
  }
  const bytes = new TextEncoder().encode(JSON.stringify(metadata)).length;
  if (bytes > METADATA_MAX_BYTES) throw new InvalidArgumentsError(`${field}: ${bytes} bytes as JSON, at most ${METADATA_MAX_BYTES} allowed`, field);
}

/** Checks tags: strings of 1 to 64 characters, at most 32. @throws InvalidArgumentsError naming `field`. */
export function checkTags(tags: unknown, field: string): void {
  if (tags === undefined) return;
  if (!Array.isArray(tags) || tags.length > TAGS_MAX || tags.some((t) => typeof t !== 'string' || t.length === 0 || t.length > TAG_MAX_LENGTH)) {
    throw new InvalidArgumentsError(`${field}: expected at most ${TAGS_MAX} tags of 1 to ${TAG_MAX_LENGTH} characters`, field);
  }
}

/**
 * A stored node from the agent's definition: defaults applied (max_attempts 3, timeout_ms 10 minutes, priority
 * medium, depends_on []), duplicates in depends_on and tags dropped, an empty validation command left out.
 */
export function nodeFromDefinition(d: TaskNodeDefinition, status: TaskStatus, now: string): TaskNode {
  const node: TaskNode = {
    id: d.id,
    title: d.title,
    depends_on: [...new Set(d.depends_on ?? [])],
    max_attempts: d.max_attempts ?? DEFAULT_MAX_ATTEMPTS,
    timeout_ms: d.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    status,
    current_attempt: 0,
    error_logs: [],
    updated_at: now,
  };
  if (d.description !== undefined) node.description = d.description;
  if (d.validation_command !== undefined && d.validation_command.trim() !== '') node.validation_command = d.validation_command;
  if (d.output_tail_bytes !== undefined) node.output_tail_bytes = d.output_tail_bytes;
  node.priority = d.priority ?? DEFAULT_PRIORITY;
  if (d.tags !== undefined) node.tags = [...new Set(d.tags)];
  if (d.metadata !== undefined) node.metadata = { ...(d.metadata as Record<string, TaskMetadataValue>) };
  return node;
}

/** Checks the bounded fields of every definition (tags, metadata), naming `nodes[i].…`. */
export function checkDefinitionFields(nodes: readonly TaskNodeDefinition[], field = 'nodes'): void {
  nodes.forEach((n, i) => {
    checkTags(n.tags, `${field}[${i}].tags`);
    checkMetadata(n.metadata, `${field}[${i}].metadata`);
  });
}

/** The status a new or re-pointed node starts in: READY when every dependency is COMPLETED, else PENDING. */
export function initialStatus(depends: readonly string[], statusOf: (id: string) => TaskStatus | undefined): TaskStatus {
  return depends.every((d) => statusOf(d) === TaskStatus.Completed) ? TaskStatus.Ready : TaskStatus.Pending;
}
