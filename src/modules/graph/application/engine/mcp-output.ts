import type { McpToolCallResult } from '../ports/mcp-client-pool';

/**
 * What an `mcp` node outputs: `structuredContent` when present, else the first text content parsed as JSON, else that
 * text as it is. A result with no text content at all outputs its content array (images, resources) or null.
 */
export function mcpNodeOutput(result: McpToolCallResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const text = result.content?.find((c) => c.type === 'text' && typeof c.text === 'string')?.text;
  if (text === undefined) return result.content && result.content.length > 0 ? result.content : null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** The text of an error result, on one line and bounded, for the ExternalToolError message. */
export function mcpErrorText(result: McpToolCallResult, max = 500): string {
  const text = (result.content ?? [])
    .filter((c) => c.type === 'text' && typeof c.text === 'string')
    .map((c) => c.text)
    .join(' ')
    .trim();
  if (!text) return 'no message';
  return text.length > max ? `${text.slice(0, max)}...` : text;
}
