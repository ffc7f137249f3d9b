import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { HttpServerProcess, waitFor, type HttpConn } from './helpers/http-server';
import { connectClient, tempDir } from './helpers/server-process';

/**
 * Durable workflow sessions over streamable HTTP (built server, SDK StreamableHTTPClientTransport), beside a stdio
 * server on the same data dir: prompts, a run begun by one HTTP client and resumed by another after the first ended its
 * session (by the MCP root as workspace), paging workflow_sessions, and a resource subscription over HTTP hearing the
 * other process's change.
 */
const WORKFLOWS = path.resolve(__dirname, '../fixtures/session-workflows');
type Answer = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function ok(c: { client: HttpConn['client'] }, name: string, args: Record<string, unknown>): Promise<Answer> {
  const r = (await c.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent as Answer;
}

describe('workflow sessions over streamable HTTP (built server, SDK client)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: HttpServerProcess | undefined;
  beforeEach(() => (tmp = tempDir('wg-http-sess-')));
  afterEach(() => {
    server?.kill();
    tmp.cleanup();
  });

  it('start over HTTP, a change by a stdio server reaches the HTTP subscriber, a new HTTP client resumes by workspace and finishes', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const workspace = path.join(tmp.dir, 'repo');
    fs.mkdirSync(workspace);
    server = await HttpServerProcess.start({ dataDir, args: ['--workflows', WORKFLOWS] });
    const first = await server.connect({ roots: [workspace] });
    const stdio = await connectClient({ dataDir, args: ['--workflows', WORKFLOWS] });
    let sessionId: string;
    try {
      const { prompts } = await first.client.listPrompts();
      expect(prompts.map((p) => p.name)).toContain('session-demo');
      const prompt = await first.client.getPrompt({ name: 'session-demo', arguments: { goal: 'rename' } });
      expect((prompt.messages[0].content as { text: string }).text).toContain('workflow_start');

      const s = await ok(first, 'workflow_start', { workflowId: 'session-demo', goal: 'rename the parser', context: { files: ['a.ts'] } });
      sessionId = s.sessionId;
      const uri = `workgraph://sessions/${sessionId}`;
      const updated: string[] = [];
      first.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => {
        updated.push(n.params.uri);
      });
      await first.client.subscribeResource({ uri });

      // Another process (the stdio server) advances the run: the HTTP subscriber hears it on its GET stream.
      const a = await ok(stdio, 'workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'planned' } });
      expect(a.step.completionId).toBe('per-file[0].edit');
      await waitFor('resources/updated over HTTP', () => updated.includes(uri));
      const b = await ok(first, 'workflow_continue', { continueToken: a.continueToken, output: { notesMarkdown: 'edited a.ts' } });
      expect(b.step.completionId).toBe('report');
    } finally {
      await first.close();
      await stdio.close();
    }

    const second = await server.connect({ roots: [workspace] });
    try {
      const r = await ok(second, 'workflow_resume', {});
      expect(r.candidates[0]).toMatchObject({ sessionId, workspacePath: workspace });
      expect(r.candidates[0].reasons).toContain('same workspace');
      expect(r.candidates[0].recap.map((n: { notes: string }) => n.notes)).toEqual(['planned', 'edited a.ts']);
      const done = await ok(second, 'workflow_continue', { continueToken: r.candidates[0].continueToken, output: { notesMarkdown: 'DONE' } });
      expect(done).toMatchObject({ status: 'complete', isComplete: true });

      // Paging: two more sessions, one per page.
      await ok(second, 'workflow_start', { workflowId: 'session-demo', context: { files: [] } });
      await ok(second, 'workflow_start', { workflowId: 'session-demo', context: { files: [] } });
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await ok(second, 'workflow_sessions', { status: ['active', 'complete'], limit: 1, ...(cursor ? { cursor } : {}) });
        expect(page.sessions).toHaveLength(1);
        expect(page.total).toBe(3);
        seen.push(page.sessions[0].sessionId);
        cursor = page.nextCursor;
      } while (cursor);
      expect(new Set(seen).size).toBe(3);
      expect(seen).toContain(sessionId);
      const timeline = await ok(second, 'workflow_session', { sessionId });
      expect(timeline.events.map((e: { kind: string }) => e.kind)).toEqual(['session_started', 'step_completed', 'step_completed', 'session_resumed', 'step_completed', 'session_completed']);
    } finally {
      await second.close();
    }
  }, 180_000);
});
