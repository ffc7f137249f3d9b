import { createHash } from 'node:crypto';

/**
 * The revision of a graph file's text: the first 16 hex digits of its SHA-256. graph_server and graph_tool_get answer
 * it; a write by the authoring tools names the revision it was based on and is refused (`conflict`) when the file on
 * disk has another.
 */
export function graphFileRevision(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
}
