/**
 * The SQL that asks whether a project has rows past its search watermark (`wg_knowledge_projects.posted_up_to`,
 * knowledge migration 14) — every search asks it, most often when the answer is no. Asked as a range
 * (`seq > posted_up_to`) the planner cannot know the range is empty: it estimates a third of the table, and a
 * prepared statement's generic plan (after its fifth run) or a correlated subquery scans the whole table — 200 ms
 * a search at 1,000,000 nodes. Asked of the project's newest row (the `(project, seq DESC)` index's first entry)
 * it costs one index probe whatever the plan; the rows are counted only when there are some (a write committed
 * between the search's catch-up and its statement). One place, so no statement asks it another way
 * (tests/integration/knowledge/postgres-search-plans.test.ts counts sequential scans of the nodes table).
 */

/** The project's newest seq (0 without rows): `project` is the SQL giving the project's name. */
export const newestSeq = (project: string) => `coalesce((SELECT max(seq) FROM wg_knowledge_nodes WHERE project = ${project}), 0)`;

/** True when rows past `upTo` exist. */
export const rowsPast = (project: string, upTo: string) => `(${newestSeq(project)} > ${upTo})`;

/** How many rows are past `upTo`: 0 by the index probe alone when there are none. */
export const countPast = (project: string, upTo: string) =>
  `(CASE WHEN ${rowsPast(project, upTo)} THEN (SELECT count(*) FROM wg_knowledge_nodes y WHERE y.project = ${project} AND y.seq > ${upTo}) ELSE 0 END)`;

/** The live rows at or below the watermark (the idf's N) of the project row aliased `j`. */
export const postedNodes = (project: string) => `j.nodes - ${countPast(project, 'j.posted_up_to')}`;
