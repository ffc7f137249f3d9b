/**
 * The ELK engine of the MCP Apps views (app-views.mjs builds them with this file in place of elk-engine.ts). A view is
 * one document that loads nothing by URL, so ELK's worker script travels inside it — gzipped and base64-encoded in an
 * inert `<script type="application/gzip">` element (app-views.mjs writes it), never parsed as JavaScript while the
 * view loads — and is started, on the first layout, as a Web Worker from a `blob:` URL the view makes of it. The
 * view's CSP allows exactly that (`worker-src blob:`; no other script than its own hashed one can make such a URL) and
 * the worker inherits the document's policy: no network (`connect-src 'none'`).
 *
 * Why not ELK on the page's thread (elkjs's bundled build does that): parsing ELK's 1.6 MB of script on every load
 * cost a view about 0.5 s before its first screen (measured for bench/mcp-apps-render.js's 5,000-task DAG, which ELK
 * does not even lay out), and a 400-task layout then held the page's thread for 1.5–2 s.
 *
 * A host whose own CSP for the frame allows no `blob:` worker: the engine fails (the constructor throws, or the worker
 * reports an error) and the callers fall back to their layouts without ELK (layout.ts, GraphDrawing.tsx).
 */
import ELK from 'elkjs/lib/elk-api.js';
import type { ElkNode } from 'elkjs/lib/elk-api.js';

/** What a layout needs of ELK. */
export interface ElkEngine {
  layout(graph: ElkNode): Promise<ElkNode>;
}

/** The element app-views.mjs writes ELK's worker script into. */
export const ELK_SCRIPT_ID = 'workgraph-elk-worker';

/** ELK's worker script as a `blob:` URL, from the document's gzipped copy. */
async function workerUrl(): Promise<string> {
  const text = document.getElementById(ELK_SCRIPT_ID)?.textContent?.trim();
  if (!text) throw new Error('this view carries no ELK script');
  const gzipped = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const script = await new Response(new Blob([gzipped]).stream().pipeThrough(new DecompressionStream('gzip'))).blob();
  return URL.createObjectURL(new Blob([script], { type: 'text/javascript' }));
}

async function start(): Promise<ElkEngine> {
  const url = await workerUrl();
  let failed: Error | undefined;
  const waiting = new Set<(e: Error) => void>();
  const elk = new ELK({
    workerUrl: url,
    workerFactory: (u) => {
      // Throws where the frame's CSP forbids the worker; an error event where it cannot load or run.
      const worker = new Worker(u!);
      worker.addEventListener('error', (e) => {
        failed = new Error(`ELK's worker failed${e.message ? `: ${e.message}` : ''}`);
        for (const reject of waiting) reject(failed);
        waiting.clear();
      });
      return worker;
    },
  });
  return {
    layout: (graph) =>
      failed
        ? Promise.reject(failed)
        : new Promise<ElkNode>((resolve, reject) => {
            waiting.add(reject);
            elk.layout(graph).then(resolve, reject).finally(() => waiting.delete(reject));
          }),
  };
}

let engine: Promise<ElkEngine> | undefined;

/** The one engine of the view, its worker started on first use. */
export function elkEngine(): Promise<ElkEngine> {
  engine ??= start();
  return engine;
}
