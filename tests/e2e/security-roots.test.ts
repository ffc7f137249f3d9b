import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './helpers/server-process';
import { call, expectRefused, type Conn } from './helpers/tool-refusals';

/**
 * The trust boundary's roots through the built server and a real client (DESIGN.md §2): a client's MCP roots only
 * narrow the operator's --allow-root; without operator roots the client's stand; without client roots the configured
 * ones (WORKGRAPH_ALLOWED_ROOTS) apply. (Names and paths from the agent: security.test.ts.)
 */

describe('security: client MCP roots only narrow the operator roots (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let configured: string;
  let outside: string;
  let clientRoots: string[];
  let conn: Conn;
  beforeAll(async () => {
    tmp = tempDir('wg-sec-roots-');
    configured = path.join(tmp.dir, 'configured');
    outside = path.join(tmp.dir, 'outside');
    for (const d of [configured, outside, path.join(configured, 'narrow'), path.join(configured, 'other')]) fs.mkdirSync(d);
    clientRoots = ['file:///'];
    conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--allow-root', configured], capabilities: { roots: { listChanged: true } } });
    conn.client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: clientRoots.map((uri) => ({ uri, name: 'client' })) }));
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    tmp.cleanup();
  });

  const nodes = [{ id: 'a', title: 'A' }];
  const scaffold = (targetDirectory: string) => ({ targetDirectory, architectureContent: 'a', phaseTasks: [], testCasesContent: 't' });

  it('a client answering file:/// cannot init or scaffold outside the operator roots', async () => {
    expectRefused(await call(conn, 'init_project_graph', { projectName: 'out', projectRoot: outside, nodes }), 'path_not_allowed', 'projectRoot', configured);
    expectRefused(await call(conn, 'init_project_graph', { projectName: 'etc', projectRoot: '/etc', nodes }), 'path_not_allowed', 'projectRoot');
    expectRefused(await call(conn, 'scaffold_project_docs', scaffold(outside)), 'path_not_allowed', 'targetDirectory');
    expect(fs.readdirSync(outside)).toEqual([]);
    const inside = await call(conn, 'init_project_graph', { projectName: 'in', projectRoot: configured, nodes });
    expect(inside.isError).toBeFalsy();
  });

  it('a client root inside the operator root narrows it', async () => {
    clientRoots = [pathToFileURL(path.join(configured, 'narrow')).href, pathToFileURL(outside).href];
    await conn.client.sendRootsListChanged();
    // The notification and the next call travel in order on one pipe, so the next call sees the new roots.
    expectRefused(
      await call(conn, 'init_project_graph', { projectName: 'other', projectRoot: path.join(configured, 'other'), nodes }),
      'path_not_allowed',
      'projectRoot',
      path.join(configured, 'narrow'),
    );
    expectRefused(await call(conn, 'scaffold_project_docs', scaffold(outside)), 'path_not_allowed', 'targetDirectory');
    const r = await call(conn, 'scaffold_project_docs', scaffold(path.join(configured, 'narrow')));
    expect(r.isError).toBeFalsy();
  });
});

describe('security: without operator roots, the client roots stand (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let clientRoot: string;
  let elsewhere: string;
  let conn: Conn;
  beforeAll(async () => {
    tmp = tempDir('wg-sec-client-roots-');
    clientRoot = path.join(tmp.dir, 'client-root');
    elsewhere = path.join(tmp.dir, 'elsewhere');
    fs.mkdirSync(clientRoot);
    fs.mkdirSync(elsewhere);
    conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), capabilities: { roots: { listChanged: true } } });
    conn.client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: pathToFileURL(clientRoot).href, name: 'client' }] }));
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    tmp.cleanup();
  });

  const nodes = [{ id: 'a', title: 'A' }];

  it('accepts a projectRoot inside the client root and refuses one outside it, naming the client root', async () => {
    const r = await call(conn, 'init_project_graph', { projectName: 'in-client-root', projectRoot: clientRoot, nodes });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent!.project_root).toBe(clientRoot);
    const refused = await call(conn, 'init_project_graph', { projectName: 'elsewhere', projectRoot: elsewhere, nodes });
    expectRefused(refused, 'path_not_allowed', 'projectRoot', clientRoot);
  });
});

describe('security: without client roots, the configured roots apply (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let conn: Conn;
  beforeAll(async () => {
    tmp = tempDir('wg-sec-noroots-');
    fs.mkdirSync(path.join(tmp.dir, 'a'));
    fs.mkdirSync(path.join(tmp.dir, 'b'));
    conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), env: { WORKGRAPH_ALLOWED_ROOTS: path.join(tmp.dir, 'a') } });
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    tmp.cleanup();
  });

  it('WORKGRAPH_ALLOWED_ROOTS bounds projectRoot and targetDirectory', async () => {
    const nodes = [{ id: 'a', title: 'A' }];
    expect((await call(conn, 'init_project_graph', { projectName: 'ok', projectRoot: path.join(tmp.dir, 'a'), nodes })).isError).toBeFalsy();
    expectRefused(await call(conn, 'init_project_graph', { projectName: 'no', projectRoot: path.join(tmp.dir, 'b'), nodes }), 'path_not_allowed', 'projectRoot');
    expectRefused(
      await call(conn, 'scaffold_project_docs', { targetDirectory: path.join(tmp.dir, 'b'), architectureContent: 'a', phaseTasks: [], testCasesContent: 't' }),
      'path_not_allowed',
      'targetDirectory',
    );
  });
});
