/**
 * What a view reads from the server through the host besides its document (the server's VIEW_ASSETS,
 * src/kernel/tools/app-views.ts; tests/unit/dashboard/view-assets.test.ts holds the two equal). Pure: names only.
 */
/** ELK's worker script, gzipped: read only when a graph is small enough for ELK (elk-engine-inline.ts). */
export const ELK_WORKER_URI = 'ui://workgraph/assets/elk-worker.js.gz';
