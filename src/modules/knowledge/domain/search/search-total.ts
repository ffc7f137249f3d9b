/**
 * search_nodes' `total` is exact up to this many matches. Beyond it a store may answer `total: SEARCH_TOTAL_CAP` with
 * `totalExact: false` ("at least that many"): counting every one of 370,000 matches of a common word costs more than
 * ranking the first page (docs/architecture.md, "Search engine (knowledge)"). A store that knows the exact figure
 * cheaply (a one-term query without filters: the term's document count) answers it exactly.
 */
export const SEARCH_TOTAL_CAP = 10_000;

