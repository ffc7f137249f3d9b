/**
 * The ELK engine the dashboard lays graphs out with: ELK's own worker script (a Vite asset) in a Web Worker, so a
 * large graph never freezes the page. The MCP Apps views are built with elk-engine-inline.ts in its place
 * (app-views.mjs): a view's document loads nothing by URL.
 */
import ELK from 'elkjs/lib/elk-api.js';
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import elkWorkerUrl from 'elkjs/lib/elk-worker.min.js?url';

/** What a layout needs of ELK. */
export interface ElkEngine {
  layout(graph: ElkNode): Promise<ElkNode>;
}

let elk: ElkEngine | undefined;

/** The one engine of the page (its worker started on first use). */
export async function elkEngine(): Promise<ElkEngine> {
  elk ??= new ELK({ workerUrl: elkWorkerUrl });
  return elk;
}
