/**
 * The ELK engine of the MCP Apps views (app-views.mjs builds them with this file in place of elk-engine.ts). A view is
 * one document that loads nothing by URL, and carrying ELK's 1.6 MB worker script (0.63 MB gzipped and base64-encoded)
 * cost every view that never lays a graph out with ELK its tokenizing — the 5,000-task DAG, laid out linearly, among
 * them (bench/mcp-apps-render.js). So the script is read through the host only on the first layout ELK is asked for
 * (a DAG of up to 400 tasks, a graph tool's drawing): `resources/read` of the server's view asset
 * ui://workgraph/assets/elk-worker.js.gz (src/server/mcp-apps.ts; the host's `serverResources` capability), gunzipped
 * and started as a Web Worker from a `blob:` URL the view makes of it. The view's CSP allows exactly that
 * (`worker-src blob:`; no other script than its own hashed one can make such a URL) and the worker inherits the
 * document's policy: no network (`connect-src 'none'`).
 *
 * Why not ELK on the page's thread (elkjs's bundled build does that): parsing ELK's 1.6 MB of script on every load
 * cost a view about 0.5 s before its first screen, and a 400-task layout then held the page's thread for 1.5–2 s.
 *
 * A read that fails (the host, or the server behind it, refused it or lost it) is tried twice more, 0.3 s and then 1 s
 * later, before the engine gives up. Where ELK cannot run — a host that offers views no resource reads, a read that
 * failed three times, a frame whose CSP allows no `blob:` worker — the engine fails with a one-line reason and the
 * callers fall back to their layouts without ELK (layout.ts, GraphDrawing.tsx), saying so in a notice; where another
 * try may help (the reads failed: `retryable` on the error), the notice offers the person a Retry, which lays the
 * graph out again and so reads the script again.
 */
import ELK from 'elkjs/lib/elk-api.js';
import type { ElkNode } from 'elkjs/lib/elk-api.js';
import { HostReadError, readServerBlob } from './views/host';
import { ELK_WORKER_URI } from './views/assets';

/** What a layout needs of ELK. */
export interface ElkEngine {
  layout(graph: ElkNode): Promise<ElkNode>;
}

/** Waits before the second and the third read of ELK's script, when a read failed. */
export const READ_RETRY_MS = [300, 1_000];

/** ELK's script read through the host, a failed read tried again after each of READ_RETRY_MS. */
async function readWorkerScript(): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await readServerBlob(ELK_WORKER_URI);
    } catch (e) {
      if (!(e instanceof HostReadError) || !e.retryable || attempt >= READ_RETRY_MS.length) throw e;
      await new Promise((r) => setTimeout(r, READ_RETRY_MS[attempt]));
    }
  }
}

/** ELK's worker script as a `blob:` URL, from the gzipped copy read through the host. */
async function workerUrl(): Promise<string> {
  const packed = await readWorkerScript();
  try {
    const gzipped = Uint8Array.from(atob(packed), (c) => c.charCodeAt(0));
    const script = await new Response(new Blob([gzipped]).stream().pipeThrough(new DecompressionStream('gzip'))).blob();
    return URL.createObjectURL(new Blob([script], { type: 'text/javascript' }));
  } catch (e) {
    throw new HostReadError(`${ELK_WORKER_URI} came back damaged (${(e as Error).message})`, true);
  }
}

const REFUSED = "this frame's policy allows no worker";

async function start(): Promise<ElkEngine> {
  const url = await workerUrl();
  let failed: Error | undefined;
  const waiting = new Set<(e: Error) => void>();
  const elk = new ELK({
    workerUrl: url,
    workerFactory: (u) => {
      // Where the frame's CSP forbids the worker: the constructor throws, or the document hears the policy's
      // violation and the worker an error event; an error event alone where the script cannot load or run.
      let refused = false;
      const onViolation = (e: SecurityPolicyViolationEvent) => {
        if (e.blockedURI.startsWith('blob') || /^(worker|script|child|default)-src/.test(e.effectiveDirective)) refused = true;
      };
      document.addEventListener('securitypolicyviolation', onViolation);
      let worker: Worker;
      try {
        worker = new Worker(u!);
      } catch {
        document.removeEventListener('securitypolicyviolation', onViolation);
        throw new Error(REFUSED);
      }
      worker.addEventListener('message', () => document.removeEventListener('securitypolicyviolation', onViolation), { once: true });
      worker.addEventListener('error', (e) => {
        // The violation is reported as a task of its own: heard by the next turn.
        setTimeout(() => {
          document.removeEventListener('securitypolicyviolation', onViolation);
          failed = new Error(refused ? REFUSED : `ELK's worker failed${e.message ? `: ${e.message}` : ''}`);
          for (const reject of waiting) reject(failed);
          waiting.clear();
        }, 0);
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

/**
 * The one engine of the view, its worker started on first use. A start that failed for good is not tried again: a
 * host without resource reads or a frame without workers stays so, and each try would read 0.6 MB through the host.
 * One whose reads failed (retryable) is forgotten, so the next layout — the person's Retry — reads the script again.
 */
export function elkEngine(): Promise<ElkEngine> {
  if (!engine) {
    const starting = start();
    engine = starting;
    starting.catch((e: unknown) => {
      if (e instanceof HostReadError && e.retryable && engine === starting) engine = undefined;
    });
  }
  return engine;
}
