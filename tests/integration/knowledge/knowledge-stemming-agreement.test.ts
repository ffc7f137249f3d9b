import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { forEachWord, textTerms } from '../../../src/modules/knowledge/domain/search';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { WORDS, TAGS } = require('../../../bench/fixtures/knowledge-graph.js') as { WORDS: string[]; TAGS: string[] };

/**
 * "English stemming, the same on both stores" (docs/knowledge-graph.md, "The same terms on both stores"): every text of a
 * vocabulary is made into terms by the files' code (domain/search/search-text.ts: folding, words, stopwords, Porter2)
 * and by PostgreSQL's (the lexemes and positions of wg_knowledge_vector over a node with that thought, tag or artifact
 * — knowledge migrations 3 and 8), and the two must be the same terms at the same positions. The vocabulary: every
 * word the bench generator emits, English words with hard stems, and text in other scripts, with marks, digits and
 * symbols. The server's locale is a UTF-8 one (embedded PostgreSQL: C.UTF-8), whose [[:alnum:]] the files follow.
 */

let pg: TestPostgres;
let db: PgDatabase;
beforeAll(async () => {
  pg = await startTestPostgres();
  db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 2 });
  await migrate(db, knowledgeMigrations);
}, 120_000);
afterAll(async () => {
  await db?.close();
  await pg?.stop();
});

/** English words whose stems are hard: -ies, -ying, -ational, -ness, -ly, doubled consonants, Porter2's exceptions. */
const ENGLISH = (
  'queries query queried querying flies flying flied dies dying died lies lying tied tying ties skies sky ' +
  'relational relation relate related relativity conditional rational rationale national nationalize ' +
  'happiness happy happily kindness darkness business emptiness ' +
  'hopeful hopefulness hopefully careless carelessness useful usefulness ' +
  'running runner runs ran hopping hoped hoping stopped stopping planned planning fitted fitting ' +
  'generate generates generated generating generation generations generator generous generously ' +
  'caresses ponies cats caress feed agreed disabled matting mating meeting milling messing meetings ' +
  'conflated troubled sized hopping tanned falling hissing fizzed failing filing ' +
  'happy sky bye ' +
  'digitizer operator feudalism decisiveness hopefulness callousness formality sensitivity sensibility ' +
  'triplicate formative formalize electricity electrical hopeful goodness revival allowance inference ' +
  'airliner gyroscopic adjustable defensible irritant replacement adjustment dependent adoption homologou ' +
  'communism activate angularity homologous effective bowdlerize probate rate cease controll roll ' +
  'skis skies dying lying tying idly gently ugly early only singly news howe atlas cosmos bias andes ' +
  'inning innings outing outings canning cannings herring herrings earring earrings proceed proceeds exceed ' +
  'succeed succeeded generically general generalities arsenal arsenals communal commune communities ' +
  'universe university universal universally organization organizations organize organizer organizing ' +
  'cachés caching cached cache caches cacheable recaching precached ' +
  'retries retrying retried retry retrial retriable backoffs backing backed ' +
  'indexes indices indexing indexed reindex reindexing schemas schemata schematic ' +
  'parsers parsing parsed reparsing tokenization tokenizing tokenizer tokenizers ' +
  'databases database postgresql postgres migrations migrating migrated ' +
  'stores storing stored storage restore restoring restored restoration ' +
  'summaries summarize summarizing summarized summarization summary ' +
  'latencies latency budgets budgeting memories memory buffers buffering buffered ' +
  'workers working worked queues queued queueing queuing batches batching batched ' +
  'reviewing reviewer reviews reviewed tests testing tested tester fixtures ' +
  'appended appending deletes deleting deleted graphs graphing nodes edges parents children child ' +
  'locking locked locks files filed filing streams streaming streamed ' +
  'ational tional enci anci izer bli alli entli eli ousli ization ation ator alism aliveness fulness ' +
  'ousness aliti iviti biliti logi fulli lessli icate ative alize iciti ical ful ness ' +
  'ement ment ent ism ate iti ous ive ize ion al er ic able ible ant ance ence ' +
  'y ys yed ying yes howe howes sses ssess ' +
  'aed aeds aedly aedlys aing aings aingly ainglys oed oing ued uing ied ieds iedly iing eed eeds eedly eing eings eingly yed ying yings ' +
  'aed aing oed eed eeds eedly ied ies ss us ' +
  'sly slyly skiing skied skier dyed dyeing sews tying vying ' +
  'abbreviations abbreviation abbreviated accompanying accomplishments accountability acknowledging ' +
  'administratively advantageous aeronautical affectionately aggressiveness algorithmically alphabetically ' +
  'ambiguities anaesthetics anthropological apologetically appreciatively archaeologists argumentatively ' +
  'articulation astonishingly asynchronously authoritatively autobiographical bureaucratization ' +
  'catastrophically characterizations chronologically circumstantially collaboratively commercialization ' +
  'compartmentalization comprehensively conceptualization confidentiality congratulations conscientiousness ' +
  'consequentially constitutionality contemporaneously controversially conventionalities correspondingly ' +
  'counterproductive crystallization decentralization decontamination deindustrialization demilitarization ' +
  'democratization denationalization departmentalization desensitization destabilization differentiation ' +
  'disenfranchisement disproportionately electromagnetically encyclopaedias entrepreneurialism ' +
  'environmentalists establishmentarianism experimentation extraterritoriality generalizations ' +
  'hospitalizations hypersensitivities idiosyncratically immunosuppressive impressionistically ' +
  'incomprehensibilities indistinguishable individualistically industrialization institutionalization ' +
  'intercontinental internationalization interrelationships irreconcilabilities knowledgeably ' +
  'microorganisms misappropriations misinterpretations multiculturalism nonrepresentational ' +
  'oversimplifications pharmaceuticals photosynthetically psychologically quintessentially ' +
  'reconceptualization representativeness semiautomatically telecommunications uncharacteristically ' +
  'unconstitutionally underrepresentation unquestionably weatherproofing wholeheartedly xenophobically'
).split(' ');

/** Shapes of words: possessives, hyphens, apostrophes, digits, case. */
const SHAPES = [
  "the cat's whiskers", "James's book", "the dogs' bones", "don't won't can't shouldn't", "o'clock O'Neill rock'n'roll",
  'state-of-the-art', 'e-mail re-index co-operate', 'x86_64 v2.3.1 ipv6 h2o 3d 1st 2nd 10th 1e5 0x1f 00123 -42 3.14',
  'abc123def 123abc abc123 a1b2c3', 'CAPS Lower MiXeD', 'TESTING Tested tEsTs', 'UTF-8 ISO-8859-1', 'C++ C# F# .NET node.js',
  'https://example.com/path?q=retrying&x=1 user@example.com', 'snake_case camelCase kebab-case PascalCase',
  'retry, retry; retry: retry! retry? (retry) [retry] {retry} <retry> "retry" \u2018retry\u2019 \u201cretry\u201d',
  'the the of of and a an', 'i me my myself we our', 's t can will just don should now',
];

/** Other scripts, folding, marks, symbols. */
const UNICODE = [
  'café cafés Café CAFÉ', 'naïve naïvely naïveté', 'straße Straßen STRASSE', 'résumé résumés', 'señoritas mañanas',
  'Ångström Øresunds øresund størrelses', 'Œuvres œuvre æsthetics Æon', 'zürich\u2019s über Übergrößen',
  'ðeings þornings ȿtrange', 'łódź Kraków Dvořák', 'ĳssel ǅemal ﬁnancial ﬂies ﬀ',
  'λόγος λόγοι ΣΟΦΊΑ ΟΔΟΣ σοφίας Ελληνικά', 'Москва москвами Кириллица ёлки ЁЛКИ', 'İstanbul ıstanbul Iİıi',
  '東京タワー 日本語のテキスト 中文字符', '한국어 텍스트', 'العربية الكتب', 'עברית', 'हिन्दी भाषा', 'தமிழ்', 'ภาษาไทย',
  '😀emoji emoji😀 🙂 👍🏽 family👨‍👩‍👧', 'x\u0303ylophones e\u0301 a\u0308 n\u0303 o\u0328\u0301', '\u0301\u0302 marks only',
  'a\u20dd circled a\u1ab0x a\u1dc0y a\ufe20z', 'Ⅻ ① ② x² H₂O ½ ¾ ㎏ ㎞ ℃ ™', '٣flies flies٣ ٣٣ x٣flies ১২৩',
  'zero\u200bwidth nbsp\u00a0here thin\u2009space em\u2014dash', 'full\uff37idth ＡＢＣ ｆｌｉｅｓ',
  'ᾅ ᾍ ǖ ǘ ḗ', '\u{1D400}math\u{1D401} \u{1D54F}', 'x'.repeat(999) + 'ations', 'x'.repeat(1000) + 'ations',
  'short ' + 'é'.repeat(1023) + ' tail', 'short ' + 'é'.repeat(1024) + ' tail', 'a ' + 'y'.repeat(2046) + ' b', 'a ' + 'y'.repeat(2047) + ' b',
];

/** Terms by position, as the files make them (positions from 1, as PostgreSQL numbers them). */
function filesTerms(text: string): string[] {
  const { terms, positions } = textTerms(text);
  return terms.map((t, i) => `${t}@${positions[i]! + 1}`).sort();
}

/** The same from PostgreSQL: wg_knowledge_vector of nodes with these texts in the field named, weight of that field. */
async function postgresTerms(texts: string[], field: 'thought' | 'tag' | 'artifact'): Promise<string[][]> {
  const node =
    field === 'thought'
      ? `json_build_object('thought', w)`
      : field === 'tag'
        ? `json_build_object('thought', '', 'tags', json_build_array(w))`
        : `json_build_object('thought', '', 'tags', '[]'::json, 'artifacts', json_build_array(json_build_object('name', w)))`;
  const weight = { thought: 'A', tag: 'B', artifact: 'C' }[field];
  const r = await db.query<{ i: string; terms: string[] }>(
    `SELECT s.i, ARRAY(SELECT u.lexeme || '@' || pw.p FROM unnest(wg_knowledge_vector(${node})) u, unnest(u.positions, u.weights) pw(p, w)
                       WHERE pw.w = '${weight}' ORDER BY 1) AS terms
       FROM unnest($1::text[]) WITH ORDINALITY s(w, i) ORDER BY s.i`,
    [texts],
  );
  return r.map((row) => [...row.terms].sort());
}

const short = (s: string) => (s.length > 60 ? `${s.slice(0, 30)}…(${s.length})` : s);

async function expectSame(texts: string[], field: 'thought' | 'tag' | 'artifact' = 'thought') {
  const theirs = await postgresTerms(texts, field);
  const differ = texts.map((t, i) => ({ text: short(t), files: filesTerms(t).map(short), postgresql: theirs[i]!.map(short) })).filter((d) => JSON.stringify(d.files) !== JSON.stringify(d.postgresql));
  expect(differ).toEqual([]);
}

describe('the files and PostgreSQL make the same terms of the same text', () => {
  it('every word of the bench generator, alone and as its thoughts and tags', async () => {
    await expectSame([...WORDS, ...TAGS]);
    await expectSame([WORDS.join(' '), WORDS.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('. ') + '.']);
    await expectSame(TAGS, 'tag');
  });

  it('English words with hard stems, each alone and all as one text', async () => {
    expect(new Set(ENGLISH).size).toBeGreaterThan(450);
    await expectSame(ENGLISH);
    await expectSame([ENGLISH.join(' ')]);
  });

  it('every English word above and the bench words with each of 40 suffixes (Porter2\u2019s steps on made-up words too)', async () => {
    const SUFFIXES = 's es ed ing ingly edly ly ness ation ational ations ize izes ized izing ization ful fulness ity ities ies ied er ers est ism ist ive iveness ous ousness ement ment able ible al ally li e y'.split(' ');
    const derived = [...new Set([...ENGLISH, ...WORDS].flatMap((w) => SUFFIXES.map((x) => w + x)))];
    expect(derived.length).toBeGreaterThan(19_000);
    await expectSame(derived);
  });

  it('possessives, hyphens, apostrophes, digits, punctuation and stopwords', async () => {
    await expectSame(SHAPES);
    await expectSame(SHAPES, 'tag');
  });

  it('accents, other scripts, CJK, emoji, combining marks, compatibility forms, long words', async () => {
    await expectSame(UNICODE);
    await expectSame(UNICODE.slice(0, 20), 'tag');
    await expectSame(UNICODE.slice(0, 20), 'artifact');
    // Each word alone too (a word's stem, not a neighbour, is what is compared).
    await expectSame(UNICODE.flatMap((t) => t.split(' ')).filter((w) => w.length < 100));
  });

  it('the files\u2019 words keep their spans in the text (snippets mark the word as written)', () => {
    const text = 'Le CAFÉ est prêt: Straße, ﬁle ½ and ΟΔΟΣ';
    const seen: Array<[string, string, string | undefined]> = [];
    forEachWord(text, (w) => void seen.push([text.slice(w.start, w.end), w.folded, w.term]));
    expect(seen).toEqual([
      ['Le', 'le', 'le'],
      ['CAFÉ', 'cafe', 'cafe'],
      ['est', 'est', 'est'],
      ['prêt', 'pret', 'pret'],
      ['Straße', 'straße', 'straße'],
      ['ﬁle', 'file', 'file'],
      ['½', '1', '1'],
      ['½', '2', '2'],
      ['and', 'and', undefined],
      ['ΟΔΟΣ', 'οδοσ', 'οδοσ'],
    ]);
  });
});
