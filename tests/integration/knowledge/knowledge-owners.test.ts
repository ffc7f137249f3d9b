import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { noopCallContext, type CallContext } from '../../../src/kernel/call-context';
import type { Identity } from '../../../src/kernel/identity';
import { silentLogger } from '../../../src/kernel/logger';
import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { RandomIdGenerator } from '../../../src/kernel/random-id-generator';
import type { KnowledgeStore } from '../../../src/modules/knowledge/application/ports/knowledge-store';
import { AddNodes } from '../../../src/modules/knowledge/application/use-cases/add-nodes';
import { DeleteNodes } from '../../../src/modules/knowledge/application/use-cases/delete-nodes';
import { GetKnowledgeOverview } from '../../../src/modules/knowledge/application/use-cases/get-knowledge-overview';
import { GetNode } from '../../../src/modules/knowledge/application/use-cases/get-node';
import { ListKnowledgeProjects } from '../../../src/modules/knowledge/application/use-cases/list-knowledge-projects';
import { ListNodes } from '../../../src/modules/knowledge/application/use-cases/list-nodes';
import { SearchNodes } from '../../../src/modules/knowledge/application/use-cases/search-nodes';
import { createNdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { PgKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/postgres/pg-knowledge-store';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';

/**
 * Issue 20: "a name that is no path belongs to the identity that created it". Before, a knowledge project named by a
 * bare name (`projectContext: "notes"`) was shared by every identity that named it: bob read alice's notes, added to
 * them and deleted them. Now another identity's bare-name project answers exactly as a missing one, a listing shows
 * only one's own, `admin` sees every identity's, and a project made before owners were recorded is reachable by all
 * until the first identity that adds to it claims it. Both stores.
 */
const alice: Identity = { name: 'alice', scopes: ['read', 'write'] };
const bob: Identity = { name: 'bob', roots: ['/srv/bob'], scopes: ['read', 'write'] };
const carol: Identity = { name: 'carol', scopes: ['read', 'write', 'admin'] };
const as = (identity: Identity): CallContext => noopCallContext(undefined, identity);

async function codeOf(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (e) {
    return { code: (e as { code: string }).code, message: (e as Error).message };
  }
  throw new Error('expected a rejection');
}

function suite(name: string, make: () => Promise<{ store: KnowledgeStore; cleanup: () => Promise<void> }>) {
  describe(`bare-name knowledge projects belong to their creator (${name})`, () => {
    let store: KnowledgeStore;
    let cleanup: () => Promise<void>;
    let uc: ReturnType<typeof useCases>;
    const useCases = (s: KnowledgeStore) => {
      const clock = { now: () => Date.parse('2026-12-02T01:00:00Z') };
      return {
        add: new AddNodes(s, new RandomIdGenerator(), clock, silentLogger),
        list: new ListNodes(s),
        get: new GetNode(s),
        del: new DeleteNodes(s, clock, silentLogger),
        projects: new ListKnowledgeProjects(s),
        search: new SearchNodes(s),
        overview: new GetKnowledgeOverview(s),
      };
    };
    beforeEach(async () => {
      ({ store, cleanup } = await make());
      uc = useCases(store);
    });
    afterEach(async () => cleanup());

    it("another identity's bare-name project answers exactly as one that does not exist", async () => {
      const added = await uc.add.execute({ projectContext: 'notes', nodes: [{ id: 'n1', thought: 'alice secret', role: 'actor' }] }, as(alice));
      expect(added.project).toBe('notes');

      const missingList = await uc.list.execute({ projectContext: 'nothing' }, as(bob));
      const list = await uc.list.execute({ projectContext: 'notes' }, as(bob));
      expect(list).toEqual({ ...missingList, project: 'notes' });
      expect(list.nodes).toEqual([]);

      const missingGet = await codeOf(uc.get.execute({ projectContext: 'nothing', id: 'n1' }, as(bob)));
      const get = await codeOf(uc.get.execute({ projectContext: 'notes', id: 'n1' }, as(bob)));
      expect(get.code).toBe('not_found');
      expect(get.message).toBe(missingGet.message.replace("'nothing'", "'notes'"));

      const del = await codeOf(uc.del.execute({ projectContext: 'notes', nodeIds: ['n1'] }, as(bob)));
      expect(del.code).toBe('not_found');
      const overview = await codeOf(uc.overview.execute({ project: 'notes' }, as(bob)));
      expect(overview.code).toBe('not_found');
      expect(overview.message).not.toContain('alice');
      const search = await uc.search.execute({ projectContext: 'notes', query: 'secret' }, as(bob));
      expect(search.hits).toEqual([]);

      // Nothing of alice's changed, and she still reads it.
      expect((await uc.list.execute({ projectContext: 'notes' }, as(alice))).nodes.map((n) => n.thought)).toEqual(['alice secret']);
    });

    it('two identities adding to one bare name get a project each; listings show only their own; admin sees both', async () => {
      await uc.add.execute({ projectContext: 'notes', nodes: [{ thought: 'alice secret', role: 'actor' }] }, as(alice));
      const bobs = await uc.add.execute({ projectContext: 'notes', nodes: [{ thought: 'bob thought', role: 'actor' }] }, as(bob));
      expect(bobs.project).toBe('notes');
      expect((await uc.list.execute({ projectContext: 'notes' }, as(alice))).nodes.map((n) => n.thought)).toEqual(['alice secret']);
      expect((await uc.list.execute({ projectContext: 'notes' }, as(bob))).nodes.map((n) => n.thought)).toEqual(['bob thought']);

      const listed = async (who: Identity) => (await uc.projects.execute(undefined, as(who))).projects.map((p) => p.project);
      expect(await listed(alice)).toEqual(['notes']);
      const bobProjects = await listed(bob);
      expect(bobProjects).toHaveLength(1);
      expect(bobProjects[0]).toMatch(/^notes-[0-9a-f]{8}$/);
      expect((await listed(carol)).sort()).toEqual(['notes', bobProjects[0]!].sort());
      // bob's own project answers under the id the listing gave him too.
      expect((await uc.list.execute({ projectContext: bobProjects[0]! }, as(bob))).nodes.map((n) => n.thought)).toEqual(['bob thought']);
      expect((await uc.list.execute({ projectContext: bobProjects[0]! }, as(alice))).nodes).toEqual([]);

      const everywhere = async (who: Identity) => (await uc.search.execute({ projects: '*', query: 'secret OR thought' }, as(who))).hits.map((h) => h.thought).sort();
      expect(await everywhere(bob)).toEqual(['bob thought']);
      expect(await everywhere(alice)).toEqual(['alice secret']);
      expect(await everywhere(carol)).toEqual(['alice secret', 'bob thought']);
      // admin (carol) reads alice's by its name.
      expect((await uc.list.execute({ projectContext: 'notes' }, as(carol))).nodes.map((n) => n.thought)).toEqual(['alice secret']);
    });

    it('a bare-name project made before owners were recorded: unconfined identities reach it until the first add claims it; confined ones never', async () => {
      // As an older version wrote it: nodes, no owner.
      await store.withLock('legacy', (g) =>
        g.append([{ id: 'old', project: 'legacy', projectContext: 'legacy', thought: 'kept', role: 'actor', tags: [], artifacts: [], parents: [], createdAt: '2026-01-01T00:00:00.000Z' }]),
      );
      expect(await store.owner('legacy')).toEqual({ pathKey: null, identity: null });
      const listed = async (who: Identity) => (await uc.projects.execute(undefined, as(who))).projects.map((p) => p.project);
      expect(await listed(carol)).toEqual(['legacy']);
      expect(await listed(alice)).toEqual(['legacy']);
      // bob is confined to roots: a record with neither a folder nor an owner is not his.
      expect(await listed(bob)).toEqual([]);
      expect((await uc.list.execute({ projectContext: 'legacy' }, as(bob))).nodes).toEqual([]);
      expect((await uc.list.execute({ projectContext: 'legacy' }, as(alice))).nodes.map((n) => n.thought)).toEqual(['kept']);
      await uc.add.execute({ projectContext: 'legacy', nodes: [{ thought: 'claimed', role: 'actor', parents: ['old'] }] }, as(alice));
      expect(await store.owner('legacy')).toEqual({ pathKey: null, identity: 'alice' });
      expect((await uc.list.execute({ projectContext: 'legacy' }, as(alice))).nodes.map((n) => n.thought)).toEqual(['claimed', 'kept']);
      // Claimed: the other unconfined identity without admin no longer reaches it; admin does; nothing was lost.
      expect((await uc.list.execute({ projectContext: 'legacy' }, as({ name: 'dave', scopes: ['read'] }))).nodes).toEqual([]);
      expect((await uc.list.execute({ projectContext: 'legacy' }, as(carol))).nodes).toHaveLength(2);
    });

    it('a bare name that is a folder project\'s id follows the folder\'s reach', async () => {
      await uc.add.execute({ projectContext: '/srv/alice/app', nodes: [{ thought: 'folder secret', role: 'actor' }] }, as(alice));
      // bob is confined to /srv/bob: naming the project by its bare id reaches nothing of alice's folder.
      expect((await uc.list.execute({ projectContext: 'app' }, as(bob))).nodes).toEqual([]);
      expect((await uc.projects.execute(undefined, as(bob))).projects).toEqual([]);
      // An identity adding bare-name notes called 'app' does not write into the folder's project.
      await uc.add.execute({ projectContext: 'app', nodes: [{ thought: 'bob app', role: 'actor' }] }, as(bob));
      expect((await uc.list.execute({ projectContext: '/srv/alice/app' }, as(alice))).nodes.map((n) => n.thought)).toEqual(['folder secret']);
      // And a folder's first add does not take a bare-name project an identity owns.
      await uc.add.execute({ projectContext: 'docs', nodes: [{ thought: 'alice docs', role: 'actor' }] }, as(alice));
      const folder = await uc.add.execute({ projectContext: '/srv/bob/docs', nodes: [{ thought: 'bob folder docs', role: 'actor' }] }, as(bob));
      expect(folder.project).toMatch(/^docs-[0-9a-f]{8}$/);
      expect((await uc.list.execute({ projectContext: 'docs' }, as(alice))).nodes.map((n) => n.thought)).toEqual(['alice docs']);
      expect((await uc.list.execute({ projectContext: '/srv/bob/docs' }, as(bob))).nodes.map((n) => n.thought)).toEqual(['bob folder docs']);
      const bobs = (await uc.projects.execute(undefined, as(bob))).projects.map((p) => p.project);
      expect(bobs).toHaveLength(2);
      expect(bobs).toContain(folder.project);
      expect(bobs.find((p) => p !== folder.project)).toMatch(/^app-[0-9a-f]{8}$/);
    });
  });
}

describe('db export / db import keep who owns a bare-name project', () => {
  it('files → PostgreSQL → files: the owning identity goes along, and the copy answers as the original', async () => {
    const dirA = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-knowledge-owners-a-'));
    const dirB = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-knowledge-owners-b-'));
    const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 4 });
    try {
      await migrate(db, knowledgeMigrations);
      const files = createNdjsonKnowledgeStore(dirA);
      const database = new PgKnowledgeStore(db);
      const back = createNdjsonKnowledgeStore(dirB);
      const clock = { now: () => Date.parse('2026-12-02T01:00:00Z') };
      await new AddNodes(files, new RandomIdGenerator(), clock, silentLogger).execute({ projectContext: 'notes', nodes: [{ thought: 'alice secret', role: 'actor' }] }, as(alice));
      await database.importProject((await files.exportProject('notes'))!);
      expect(await database.owner('notes')).toEqual({ pathKey: null, identity: 'alice' });
      await back.importProject((await database.exportProject('notes'))!);
      expect(await back.owner('notes')).toEqual({ pathKey: null, identity: 'alice' });
      for (const store of [database, back]) {
        expect((await new ListNodes(store).execute({ projectContext: 'notes' }, as(bob))).nodes).toEqual([]);
        expect((await new ListNodes(store).execute({ projectContext: 'notes' }, as(alice))).nodes.map((n) => n.thought)).toEqual(['alice secret']);
      }
    } finally {
      await db.close();
      fs.rmSync(dirA, { recursive: true, force: true });
      fs.rmSync(dirB, { recursive: true, force: true });
    }
  });
});

suite('ndjson files', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-knowledge-owners-'));
  return { store: createNdjsonKnowledgeStore(dir), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
});

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

suite('postgresql', async () => {
  const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 4 });
  await migrate(db, knowledgeMigrations);
  return { store: new PgKnowledgeStore(db), cleanup: () => db.close() };
});
