import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { assertBuilt, CLI, connectClient, tempDir } from './helpers/server-process';

const WORKFLOWS = path.resolve(__dirname, '../fixtures/session-workflows');

function run(args: string[], dataDir: string) {
  assertBuilt();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKGRAPH_')) env[k] = v;
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...env, WORKGRAPH_DATA_DIR: dataDir } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('workgraph sessions / session (built CLI)', () => {
  it('lists sessions as a table and JSON, prints a timeline with notes, blocked attempts and forks, and prunes', async () => {
    const tmp = tempDir('wg-cli-sess-');
    try {
      const conn = await connectClient({ dataDir: tmp.dir, args: ['--workflows', WORKFLOWS, '--max-blocked-attempts', '2'] });
      let id: string;
      try {
        const call = async (name: string, args: Record<string, unknown>) => (await conn.client.callTool({ name, arguments: args })).structuredContent as Record<string, any>;
        const s = await call('workflow_start', { workflowId: 'session-demo', goal: 'tidy the parser', context: { files: [] } });
        id = s.sessionId;
        const a = await call('workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'planned the tidy-up\nsecond line' } });
        const b1 = await call('workflow_continue', { continueToken: a.continueToken, output: { notesMarkdown: 'nope' } });
        const b2 = await call('workflow_continue', { continueToken: b1.retryToken, output: { notesMarkdown: 'still no' } });
        expect(b2.attemptsExhausted).toBe(true);
        await call('workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'planned again' }, fork: true });
      } finally {
        await conn.close();
      }

      const table = run(['sessions'], tmp.dir);
      expect(table.code).toBe(0);
      expect(table.stdout).toMatch(/^ID\s+STATUS\s+WORKFLOW\s+STEP\s+UPDATED\s+GOAL/);
      expect(table.stdout).toContain(id);
      expect(table.stdout).toContain('tidy the parser');
      const json = JSON.parse(run(['sessions', '--json', '--status', 'active'], tmp.dir).stdout);
      expect(json.map((x: { sessionId: string }) => x.sessionId)).toEqual([id]);
      expect(JSON.parse(run(['sessions', '--json', '--status', 'complete'], tmp.dir).stdout)).toEqual([]);
      expect(run(['sessions', '--status', 'bogus'], tmp.dir).code).toBe(2);

      const t = run(['session', id], tmp.dir);
      expect(t.code).toBe(0);
      expect(t.stdout).toContain(`Session ${id} — active`);
      expect(t.stdout).toContain('planned the tidy-up');
      expect(t.stdout).toContain('BLOCKED Report (report), attempt 2 — attempts exhausted, needs a person');
      expect(t.stdout).toContain('FORK from point 0 (fork)');
      // Each event names who made it: the stdio identity and the agent's MCP client.
      expect(t.stdout).toMatch(/ {2}1\. \S+ {2}started.* — local \(workgraph-e2e\)/);
      const missing = run(['session', 'ffffffffffffffff'], tmp.dir);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain("session 'ffffffffffffffff' not found");

      expect(run(['sessions', 'prune'], tmp.dir).stdout).toContain('0 session(s) removed, 1 kept');
      expect(run(['sessions', 'prune', '--include-unfinished', '--older-than', '0', '--dry-run'], tmp.dir).stdout).toContain(`would remove ${id}`);
      expect(run(['sessions', 'prune', '--include-unfinished', '--older-than', '0'], tmp.dir).stdout).toContain('1 session(s) removed, 0 kept');
      expect(run(['sessions'], tmp.dir).stdout.trim()).toBe('No sessions.');
    } finally {
      tmp.cleanup();
    }
  }, 120_000);
});
