import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectClient, tempDir } from './helpers/server-process';
import { connectModernStdio } from './helpers/modern-client';

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * docs/knowledge-graph.md's query syntax examples run as documented, through the built server over stdio in both
 * protocol eras: every backticked query of the "Query syntax" table is read from the doc and must be one this test
 * knows (an example added to the table fails here until it is given its expected hits), then searched with
 * search_nodes; beside them the examples the table's second column and the prose name (`-"a phrase"`, OR's binding,
 * folding, stemming, stopwords, punctuation), `projects: "*"` and get_node's neighbours.
 */
const DOC = path.resolve(__dirname, '../../docs/knowledge-graph.md');

/** Expected hit ids (any order) or the refusal, per documented query, over the nodes below. */
const EXPECTED: Record<string, string[] | RegExp> = {
  'retry backoff': ['n1', 'n9'],
  '"exponential backoff"': ['n1'],
  'retry -flaky': ['n1', 'n6', 'n9'],
  '-"a phrase"': /^invalid_arguments: query: '-"a phrase"' has no word to look for/,
  'cach*': ['n3', 'n7'],
  'redis OR memcached': ['n3', 'n4', 'n5', 's1'],
  'sessions redis OR memcached': ['n4', 'n5', 's1'],
  'retry-policy': ['n6'],
  'src/retry.ts': ['n6'],
  // The prose below the table.
  CAFÉ: ['n8'],
  cafe: ['n8'],
  retries: ['n1', 'n2', 'n6', 'n9'],
  '(retry|backoff)': [],
  'retry | backoff': ['n1', 'n9'],
  the: /^invalid_arguments: query: 'the' has no word to look for/,
};

const NODES = [
  { id: 'n1', thought: 'Retries use exponential backoff with jitter', role: 'actor', tags: ['decision'] },
  { id: 'n2', thought: 'Retry only on a flaky network', role: 'actor' },
  { id: 'n3', thought: 'The caching layer uses redis', role: 'actor' },
  { id: 'n4', thought: 'Sessions are stored in memcached', role: 'actor', parents: ['n3'] },
  { id: 'n5', thought: 'Sessions are stored in redis', role: 'critic', parents: ['n3'] },
  { id: 'n6', thought: 'The retry-policy lives in src/retry.ts', role: 'actor' },
  { id: 'n7', thought: 'Cached responses expire', role: 'actor' },
  { id: 'n8', thought: 'Café au lait for everyone', role: 'actor' },
  { id: 'n9', thought: 'retrying after the backoff', role: 'actor' },
  { id: 'n10', thought: 'backoff exponential, the words reversed', role: 'actor' },
  { id: 's1', thought: 'Summary: sessions live in redis or memcached', role: 'summary', summarizedSegment: ['n4', 'n5'], parents: ['n4'] },
];

/** The backticked queries of the first column of the doc's "Query syntax" table (its rows up to the first blank line). */
function tableQueries(): string[] {
  const lines = fs.readFileSync(DOC, 'utf8').split('\n');
  const from = lines.findIndex((l) => l.startsWith('| query |'));
  const end = lines.findIndex((l, i) => i > from && !l.startsWith('|'));
  const rows = lines.slice(from + 2, end);
  expect(rows.length).toBeGreaterThan(4);
  return rows.flatMap((row) => [...row.split('|')[1]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

type Call = (name: string, args: Record<string, unknown>) => Promise<{ isError?: boolean; out: Structured; text: string }>;

const ERAS: Array<[string, (dataDir: string) => Promise<{ call: Call; close: () => Promise<void> }>]> = [
  ['legacy (initialize)', async (dataDir) => wrap(await connectClient({ dataDir }))],
  ['modern (2026-07-28)', async (dataDir) => wrap(await connectModernStdio({ dataDir }))],
];

function wrap(c: { client: { callTool: (p: { name: string; arguments: Record<string, unknown> }) => Promise<unknown> }; close: () => Promise<void> }) {
  const call: Call = async (name, args) => {
    const r = (await c.client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Structured; content?: Array<{ text?: string }> };
    return { isError: r.isError, out: r.structuredContent ?? {}, text: r.content?.[0]?.text ?? '' };
  };
  return { call, close: c.close };
}

describe.each(ERAS)('docs/knowledge-graph.md search examples through the built server, %s', (_era, connect) => {
  let tmp: ReturnType<typeof tempDir>;
  let conn: Awaited<ReturnType<(typeof ERAS)[number][1]>>;
  beforeAll(async () => {
    tmp = tempDir('wg-e2e-docsearch-');
    conn = await connect(path.join(tmp.dir, 'data'));
    for (const [project, nodes] of [['demo', NODES], ['other', [{ id: 'o1', thought: 'Redis cluster failover notes', role: 'actor' }]]] as const) {
      const added = await conn.call('add_nodes', { projectContext: project, nodes });
      expect(added.isError).toBeFalsy();
    }
  });
  afterAll(async () => {
    await conn.close();
    tmp.cleanup();
  });

  it('every query of the syntax table is known here, and each documented query finds what the doc says', async () => {
    const documented = tableQueries();
    expect(documented.filter((q) => !(q in EXPECTED))).toEqual([]);
    for (const [query, expected] of Object.entries(EXPECTED)) {
      const r = await conn.call('search_nodes', { projectContext: 'demo', query });
      if (expected instanceof RegExp) {
        expect([query, r.isError, r.text]).toEqual([query, true, expect.stringMatching(expected)]);
        continue;
      }
      expect([query, r.isError ?? false]).toEqual([query, false]);
      expect([query, (r.out.hits as Structured[]).map((h) => h.id).sort()]).toEqual([query, [...expected].sort()]);
      expect(r.out).toMatchObject({ project: 'demo', total: expected.length, totalExact: true });
    }
    // A phrase's hit marks its words in the snippet.
    const phrase = await conn.call('search_nodes', { projectContext: 'demo', query: '"exponential backoff"' });
    expect(phrase.out.hits[0].snippet).toBe('Retries use **exponential** **backoff** with jitter');
  });

  it('projects: "*" and a list search each project and name it; get_node walks to parents, children and summaries', async () => {
    for (const projects of ['*', ['demo', 'other']]) {
      const r = await conn.call('search_nodes', { projects, query: 'redis' });
      expect(r.out.project).toBeNull();
      expect((r.out.hits as Structured[]).map((h) => `${h.project}/${h.id}`).sort()).toEqual(['demo/n3', 'demo/n5', 'demo/s1', 'other/o1']);
    }
    const n4 = await conn.call('get_node', { projectContext: 'demo', id: 'n4', neighbours: true });
    const ids = (list: Structured[]) => list.map((b) => b.id);
    expect(ids(n4.out.neighbours.parents)).toEqual(['n3']);
    expect(ids(n4.out.neighbours.children)).toEqual(['s1']);
    expect(ids(n4.out.neighbours.summaries)).toEqual(['s1']);
    expect(Object.keys(n4.out.neighbours.parents[0]).sort()).toEqual(['createdAt', 'id', 'role', 'tags', 'thought']);
    const n3 = await conn.call('get_node', { projectContext: 'demo', id: 'n3', neighbours: true });
    expect([ids(n3.out.neighbours.parents), ids(n3.out.neighbours.children), ids(n3.out.neighbours.summaries)]).toEqual([[], ['n4', 'n5'], []]);
  });
});
