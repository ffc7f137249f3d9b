/**
 * The debugger on `serve --http … --dashboard --allow-actions`: the server process that serves /mcp holds the debug
 * run, so it is one of its engine's runs — an MCP client of the same identity reads it with graph_inspect. Each token
 * is its identity: the run carries its starter (client `dashboard`); another identity's run is answered 404 (admin
 * sees it), a token without `write` may not drive it (403), and the finished run's result is what the same tool
 * answers over MCP.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HttpServerProcess, type HttpConn } from './helpers/http-server';
import { tempDir } from './helpers/server-process';
import { SUM_TO_N } from './helpers/dashboard-seed';

jest.setTimeout(120_000);

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdefgh';
const VIEWER = 'viewer-token-0123456789abcd';
const ADMIN = 'admin-token-0123456789abcde';

let data: { dir: string; cleanup: () => void };
let server: HttpServerProcess;
let alice: HttpConn;

async function api(token: string, method: 'GET' | 'POST', p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.origin}/dashboard/api${p}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

beforeAll(async () => {
  data = tempDir('wg-serve-debug-');
  const tokenFile = path.join(data.dir, '..', `${path.basename(data.dir)}.tokens`);
  fs.writeFileSync(
    tokenFile,
    [`${ALICE} name=alice scopes=read,write,run`, `${BOB} name=bob scopes=read,write,run`, `${VIEWER} name=viewer scopes=read`, `${ADMIN} name=root scopes=read,write,run,admin`, ''].join('\n'),
  );
  server = await HttpServerProcess.start({ dataDir: data.dir, args: ['--dashboard', '--allow-actions', '--auth-token-file', tokenFile, '--graphs', SUM_TO_N] });
  alice = await server.connect({ token: ALICE });
});

afterAll(async () => {
  await alice?.close().catch(() => undefined);
  if (server && server.child.exitCode === null && server.child.signalCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  data?.cleanup();
});

test("a debug run is the serving process's own run, owned by the token's identity, driven only by it", async () => {
  const started = await api(ALICE, 'POST', '/graphs/sum_to_n/debug', { args: { n: 6 }, breakpoints: ['check_condition'] });
  expect(started.status).toBe(200);
  const runId: string = started.body.runId;
  expect(started.body).toMatchObject({ status: 'paused', currentNode: 'check_condition', actor: { name: 'alice', client: 'dashboard' } });

  // Another identity: as if it did not exist. A read-only token: no driving. Admin: sees it.
  const bobReads = await api(BOB, 'GET', `/debug/${runId}`);
  expect([bobReads.status, bobReads.body.error.code]).toEqual([404, 'not_found']);
  expect((await api(BOB, 'POST', `/debug/${runId}/stop`, {})).status).toBe(404);
  const viewer = await api(VIEWER, 'POST', `/debug/${runId}/stop`, {});
  expect([viewer.status, viewer.body.error.code]).toEqual([403, 'forbidden']);
  expect(viewer.body.error.message).toContain("needs the 'write' scope");
  expect((await api(ADMIN, 'GET', `/debug/${runId}`)).body.status).toBe('paused');

  // The same engine as /mcp: alice's MCP client inspects the paused run.
  const inspected = await alice.client.callTool({ name: 'graph_inspect', arguments: { executionId: runId } });
  expect(inspected.isError).toBeFalsy();
  expect(inspected.structuredContent).toMatchObject({ executionId: runId, status: 'paused', currentNodeId: 'check_condition', actor: { name: 'alice', client: 'dashboard' } });

  // Clear, step, resume: the result is what the tool answers over MCP.
  await api(ALICE, 'POST', `/debug/${runId}/breakpoints`, { nodeIds: [] });
  expect((await api(ALICE, 'POST', `/debug/${runId}/step`, {})).body).toMatchObject({ status: 'paused', currentNode: 'increment_node', executionCount: 3 });
  expect((await api(ALICE, 'POST', `/debug/${runId}/resume`, {})).status).toBe(200);
  let done: any;
  for (let i = 0; i < 300 && done?.status !== 'finished'; i++) {
    done = (await api(ALICE, 'GET', `/debug/${runId}`)).body;
    if (done.status !== 'finished') await new Promise((r) => setTimeout(r, 50));
  }
  expect(done.status).toBe('finished');
  const plain = await alice.client.callTool({ name: 'sum_to_n', arguments: { n: 6 } });
  expect(done.result).toEqual(plain.structuredContent);
  expect(done.result).toEqual({ sum: 21 });
  expect(server.stderr).toMatch(/"action":"debug_step".*"msg":"dashboard action"/);
});
