/**
 * Tool calls through the SDK client whose refusals the security tests check (security.test.ts, security-roots.test.ts):
 * an error result with its code, one line of text, no stack, naming what it must.
 */
import type { connectClient } from './server-process';

export type Result = { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ text: string }>; _meta?: Record<string, unknown> };
export type Conn = Awaited<ReturnType<typeof connectClient>>;

export async function call(conn: Conn, name: string, args: Record<string, unknown>): Promise<Result> {
  return (await conn.client.callTool({ name, arguments: args })) as Result;
}

/** Expects an error result with `code` whose one-line text contains every `mentions`. */
export function expectRefused(result: Result, code: string, ...mentions: string[]): void {
  if (!result.isError) throw new Error(`expected ${code}, got success: ${JSON.stringify(result.structuredContent).slice(0, 300)}`);
  const text = result.content[0].text;
  expect(result._meta?.['workgraph/errorCode']).toBe(code);
  expect(text.startsWith(`${code}: `)).toBe(true);
  expect(text).not.toMatch(/[\r\n]/);
  expect(text).not.toMatch(/\bat .+:\d+:\d+/); // no stack
  for (const m of mentions) expect(text).toContain(m);
}
