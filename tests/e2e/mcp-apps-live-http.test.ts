/**
 * The views' resource_changes tool over streamable HTTP in the 2026-07-28 era (docs/mcp-apps.md "Live views"): every
 * request its own server, the log one per process; a change is told only to an identity that reaches it — Alice's
 * view hears the change to her project's task graph made through another connection, Bob's (confined to another
 * root) hears nothing of it, as resource subscriptions would (issue 20).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HttpServerProcess } from './helpers/http-server';
import { connectModernHttp, type ModernConn } from './helpers/modern-client';
import { tempDir } from './helpers/server-process';
import { APPS_CAPABILITIES, until } from './helpers/apps-host';

jest.setTimeout(120_000);

const A = 'alice-token-0123456789abcdef';
const B = 'bob-token-0123456789abcdefgh';
type Json = Record<string, any>;

let tmp: ReturnType<typeof tempDir>;
let server: HttpServerProcess;
let rootA: string;
const conns: ModernConn[] = [];

beforeAll(async () => {
  tmp = tempDir('wg-apps-live-http-');
  const base = fs.realpathSync(tmp.dir);
  rootA = path.join(base, 'a');
  const rootB = path.join(base, 'b');
  fs.mkdirSync(rootA);
  fs.mkdirSync(rootB);
  const tokens = path.join(base, 'tokens');
  fs.writeFileSync(tokens, [`${A} name=alice roots=${rootA} scopes=read,write,run`, `${B} name=bob roots=${rootB} scopes=read,write,run`].join('\n'));
  server = await HttpServerProcess.start({ dataDir: path.join(base, 'data'), args: ['--auth-token-file', tokens, '--allow-root', base] });
}, 60_000);
afterAll(async () => {
  await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
  server?.kill();
  tmp.cleanup();
});

async function conn(token: string, apps: boolean): Promise<ModernConn> {
  const c = await connectModernHttp(server.url, { token, capabilities: apps ? APPS_CAPABILITIES : {} });
  conns.push(c);
  return c;
}

async function ok(c: ModernConn, name: string, args: Json): Promise<Json> {
  const r = await c.client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent as Json;
}

test('a change through another connection is told to the view of the identity that reaches it, never to another identity\'s', async () => {
  const aliceView = await conn(A, true);
  const bobView = await conn(B, true);
  const aliceAgent = await conn(A, false);
  const init = await ok(aliceAgent, 'init_project_graph', { projectName: 'Alpha', projectRoot: rootA, nodes: [{ id: 't', title: 'T', depends_on: [] }] });
  const uri = `workgraph://projects/${init.project_id ?? 'alpha'}/tasks`;
  const ask = (c: ModernConn) => ok(c, 'resource_changes', { resources: [uri] });
  const a0 = await ask(aliceView);
  const b0 = await ask(bobView);
  expect(a0.resources[0].uri).toBe(uri);

  await ok(aliceAgent, 'start_task', { project: 'Alpha', nodeId: 't' });
  await until(() => ask(aliceView), (a) => expect(a.resources[0].changedAt).not.toBe(a0.resources[0].changedAt), 20_000);
  const a1 = await ask(aliceView);
  expect(a1.resources[0].changedAt > a0.now).toBe(true);
  // Bob may ask about the URI, and learns nothing: no change time, the same as before the change.
  const b1 = await ask(bobView);
  expect(b1.resources[0].changedAt).toBe(b0.resources[0].changedAt);
  expect(b1.resources[0].changedAt).toBeNull();
  // One process, heard since it started: every answer agrees on heardSince.
  expect(a1.resources[0].heardSince).toBe(a0.resources[0].heardSince);

  // A client that does not show views cannot call it at all.
  const plain = await aliceAgent.client.callTool({ name: 'resource_changes', arguments: { resources: [uri] } }).catch((e: Error) => e);
  expect(String(plain instanceof Error ? plain.message : JSON.stringify(plain))).toMatch(/resource_changes/);
});
