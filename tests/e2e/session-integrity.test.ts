import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { spawnSync } from 'node:child_process';
import { CLI, connectClient, serverEnv, tempDir } from './helpers/server-process';

const WORKFLOWS = path.resolve(__dirname, '../fixtures/session-workflows');
type Answer = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Conn = Awaited<ReturnType<typeof connectClient>>;

function codeOf(r: CallToolResult): string | undefined {
  return (r._meta as Record<string, string> | undefined)?.['workgraph/errorCode'];
}
function textOf(r: CallToolResult): string {
  return (r.content as Array<{ text: string }>)[0]!.text;
}

/** The built server on `dataDir` (under `prlimit --fsize` when `fsize` is given), with the session test workflows. */
async function open(dataDir: string, fsize?: number, args: string[] = []) {
  const conn = await connectClient({ dataDir, args: ['--workflows', WORKFLOWS, ...args], wrap: fsize ? ['prlimit', `--fsize=${fsize}`] : undefined });
  const raw = async (name: string, args: Record<string, unknown>) =>
    (await conn.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
  const call = async (name: string, args: Record<string, unknown>): Promise<Answer> => {
    const r = await raw(name, args);
    if (r.isError) throw new Error(`${name}: ${textOf(r)}`);
    return r.structuredContent as Answer;
  };
  return { ...conn, raw, call };
}

/** Durable sessions under damage: short writes, torn lines, wrong caches (issue 20, "One write path, proven"). */
describe('session integrity (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let conn: (Conn & { raw: (n: string, a: Record<string, unknown>) => Promise<CallToolResult>; call: (n: string, a: Record<string, unknown>) => Promise<Answer> }) | undefined;
  beforeEach(() => (tmp = tempDir('wg-sess-int-')));
  afterEach(async () => {
    await conn?.close();
    conn = undefined;
    tmp.cleanup();
  });

  it('a short write under a file-size limit: workflow_continue answers storage_error, and after a restart no acknowledged step is lost', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const files = Array.from({ length: 20 }, (_, i) => `f${i}.ts`);
    const notes = (i: number) => `step ${i} `.padEnd(7_000, 'x');
    conn = await open(dataDir, 64 * 1024);
    const s = await conn.call('workflow_start', { workflowId: 'session-demo', context: { files } });
    let token: string = s.continueToken;
    const acked: string[] = [];
    let refused: CallToolResult | undefined;
    for (let i = 0; i < 21 && !refused; i++) {
      const r = await conn.raw('workflow_continue', { continueToken: token, output: { notesMarkdown: notes(i) } });
      if (r.isError) refused = r;
      else {
        acked.push(notes(i));
        token = (r.structuredContent as Answer).continueToken;
      }
    }
    expect(refused).toBeDefined();
    expect(codeOf(refused!)).toBe('storage_error');
    expect(textOf(refused!)).toContain(path.join('sessions', s.sessionId, 'events.ndjson'));
    expect(textOf(refused!)).toMatch(/file too large|no space left/);
    expect(acked.length).toBeGreaterThan(2);
    await conn.close();

    // The log holds every acknowledged step, whole, and nothing of the refused one.
    const log = fs.readFileSync(path.join(dataDir, 'sessions', s.sessionId, 'events.ndjson'), 'utf8');
    expect(log.endsWith('\n')).toBe(true);
    for (const line of log.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();

    conn = await open(dataDir);
    const t = await conn.call('workflow_session', { sessionId: s.sessionId });
    expect(t.damaged ?? []).toEqual([]);
    const completed = t.events.filter((e: Answer) => e.kind === 'step_completed');
    expect(completed.map((e: Answer) => e.notesMarkdown)).toEqual(acked);
    // The refused step can be sent again with the same token: it was never taken.
    const again = await conn.call('workflow_continue', { continueToken: token, output: { notesMarkdown: 'after the restart' } });
    expect(again.step.completionId).toBe(`per-file[${acked.length}].edit`);
  }, 180_000);

  it('a torn last line in sessions/index.ndjson does not swallow the next session: it is listed and resumable', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    conn = await open(dataDir);
    const a = await conn.call('workflow_start', { workflowId: 'session-demo', context: { files: [] } });
    await conn.close();
    // What a crash in the middle of an index append leaves: the start of a line, no newline.
    fs.appendFileSync(path.join(dataDir, 'sessions', 'index.ndjson'), '{"s":{"sessionId":"00000000000000');
    conn = await open(dataDir);
    const b = await conn.call('workflow_start', { workflowId: 'session-demo', context: { files: [] } });
    await conn.close();
    conn = await open(dataDir);
    const list = await conn.call('workflow_sessions', {});
    expect(list.sessions.map((x: Answer) => x.sessionId).sort()).toEqual([a.sessionId, b.sessionId].sort());
    const r = await conn.call('workflow_resume', {});
    expect(r.candidates.map((c: Answer) => c.sessionId)).toContain(b.sessionId);
  }, 120_000);

  it('a wrong snapshot.json and a duplicated session_started line: the log decides, the damage is shown, the run goes on', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    conn = await open(dataDir);
    const s = await conn.call('workflow_start', { workflowId: 'session-demo', context: { files: ['a.ts', 'b.ts'] } });
    const a = await conn.call('workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'planned' } });
    await conn.close();
    const dir = path.join(dataDir, 'sessions', s.sessionId);
    const log = path.join(dir, 'events.ndjson');
    fs.writeFileSync(path.join(dir, 'snapshot.json'), JSON.stringify({ version: 2, logOffset: fs.statSync(log).size, lines: 2, tail: { bytes: 10, sha256: 'x' }, state: { sessionId: s.sessionId } }));
    fs.appendFileSync(log, fs.readFileSync(log, 'utf8').split('\n')[0] + '\n');
    conn = await open(dataDir);
    const b = await conn.call('workflow_continue', { continueToken: a.continueToken, output: { notesMarkdown: 'edited a.ts' } });
    expect(b.step.completionId).toBe('per-file[1].edit');
    const t = await conn.call('workflow_session', { sessionId: s.sessionId });
    expect(t.events.map((e: Answer) => e.kind)).toEqual(['session_started', 'step_completed', 'step_completed']);
    expect(t.damaged).toEqual([expect.objectContaining({ line: 3, reason: expect.stringContaining('a second session_started') })]);
    expect(conn.stderr()).toContain('snapshot not used');
  }, 120_000);

  it('an empty or short sessions/token.key: refused at start with one line naming the file once sessions exist; replaced when none does', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const keyFile = path.join(dataDir, 'sessions', 'token.key');
    const serve = () => spawnSync(process.execPath, [CLI, 'serve', '--workflows', WORKFLOWS], { input: '', encoding: 'utf8', env: serverEnv({ dataDir }), timeout: 60_000 });
    // No session yet: a short key is replaced atomically, and the server serves.
    fs.mkdirSync(path.dirname(keyFile), { recursive: true });
    fs.writeFileSync(keyFile, 'short');
    expect(serve().status).toBe(0);
    expect(fs.readFileSync(keyFile).length).toBe(32);
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    conn = await open(dataDir);
    const s = await conn.call('workflow_start', { workflowId: 'session-demo', context: { files: [] } });
    await conn.close();
    conn = undefined;
    for (const bad of ['', 'x'.repeat(31)]) {
      fs.writeFileSync(keyFile, bad);
      const r = serve();
      expect(r.status).not.toBe(0);
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(keyFile);
      expect(lines[0]).toContain(`holds ${bad.length} bytes`);
      expect(fs.readFileSync(keyFile, 'utf8')).toBe(bad); // never replaced under existing sessions
    }
    expect(s.sessionId).toMatch(/^[0-9a-f]{16}$/);
  }, 120_000);

  it('bounded sessions: one output\'s artifacts and a session\'s log are capped (limit_exceeded, nothing written); the timeline pages by cursor', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    conn = await open(dataDir, undefined, ['--session-artifacts-mb', '0.01', '--session-log-mb', '0.03']);
    const files = Array.from({ length: 20 }, (_, i) => `f${i}.ts`);
    const s = await conn.call('workflow_start', { workflowId: 'session-demo', context: { files } });
    const log = path.join(dataDir, 'sessions', s.sessionId, 'events.ndjson');
    // Artifacts over 10 KiB: refused before anything is written.
    const big = await conn.raw('workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'plan', artifacts: [{ text: 'x'.repeat(11_000) }] } });
    expect(codeOf(big)).toBe('limit_exceeded');
    expect(textOf(big)).toContain('output.artifacts');
    expect(textOf(big)).toContain('--session-artifacts-mb');
    const before = fs.statSync(log).size;
    let token: string = s.continueToken;
    let refused: CallToolResult | undefined;
    let steps = 0;
    for (let i = 0; i < 20 && !refused; i++) {
      const size = fs.statSync(log).size;
      const r = await conn.raw('workflow_continue', { continueToken: token, output: { notesMarkdown: `step ${i}`, artifacts: [{ text: 'y'.repeat(6_000) }] } });
      if (r.isError) {
        refused = r;
        expect(fs.statSync(log).size).toBe(size); // nothing half-written
      } else {
        token = (r.structuredContent as Answer).continueToken;
        steps++;
      }
    }
    expect(before).toBeLessThan(1000);
    expect(codeOf(refused!)).toBe('limit_exceeded');
    expect(textOf(refused!)).toContain('--session-log-mb');
    expect(fs.statSync(log).size).toBeLessThanOrEqual(0.03 * 1024 * 1024);
    expect(steps).toBeGreaterThan(1);

    // Paging: pages of 2 events chain to the whole timeline, each event once, in order.
    const seen: number[] = [];
    let cursor: string | undefined;
    let total = 0;
    do {
      const p = await conn.call('workflow_session', { sessionId: s.sessionId, limit: 2, ...(cursor ? { cursor } : {}) });
      expect(p.events.length).toBeLessThanOrEqual(2);
      seen.push(...p.events.map((e: Answer) => e.seq));
      total = p.totalEvents;
      cursor = p.nextCursor;
    } while (cursor);
    expect(seen).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(total).toBe(steps + 1);
    const bad = await conn.raw('workflow_session', { sessionId: s.sessionId, cursor: 'abc' });
    expect(codeOf(bad)).toBe('invalid_arguments');
  }, 120_000);
});
