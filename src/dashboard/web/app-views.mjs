// The MCP Apps views (docs/mcp-apps.md): each src/dashboard/web/views/<view>.html built from the dashboard's own
// components into ONE self-contained HTML document, dist/dashboard/views/<view>.html (vite-plugin-singlefile inlines
// the script and the styles), its Content-Security-Policy written into it: no network at all (connect-src 'none'),
// only its own inline script and styles (by their sha256), images as data: URIs, workers only from the blob: URLs its
// script makes (ELK's, read through the host: src/elk-engine-inline.ts; the build writes its gzipped script beside
// the documents). The dashboard's build runs these builds when it is done (vite.config.mjs), so one
// `npm run build:dashboard` makes both.
import { build } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';

export const VIEWS = ['task-dag', 'session', 'graph-run', 'knowledge-search'];

/**
 * Views start ELK's worker from its script read through the host (src/elk-engine-inline.ts in place of
 * src/elk-engine.ts, whose worker script is a file loaded by URL).
 */
function elkOnThePage(root) {
  const inline = path.join(root, 'src', 'elk-engine-inline.ts');
  return {
    name: 'workgraph-views-elk-inline',
    enforce: 'pre',
    resolveId(id, importer) {
      if (!importer || !/[\\/]elk-engine(\.ts)?$/.test(id)) return undefined;
      return path.resolve(path.dirname(importer), id).replace(/(\.ts)?$/, '') === path.join(root, 'src', 'elk-engine') ? inline : undefined;
    },
  };
}

/**
 * ELK's worker script, gzipped (1.6 MB → 0.5 MB), beside the views: the server serves it as the views' asset
 * ui://workgraph/assets/elk-worker.js.gz (src/server/mcp-apps.ts), which a view reads through the host only when it
 * has a graph small enough for ELK (src/elk-engine-inline.ts) — no document carries it.
 */
export function writeElkWorker(outDir) {
  const file = createRequire(import.meta.url).resolve('elkjs/lib/elk-worker.min.js');
  fs.mkdirSync(path.join(outDir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(outDir, 'assets', 'elk-worker.js.gz'), gzipSync(fs.readFileSync(file), { level: 9 }));
}

/**
 * `text` inserted into `html` right after the first `marker`, as it is: a function replacer, so `$&`, `$'` or `$1`
 * in it are not replacement patterns (a script or a hash holding `$` comes through unchanged).
 */
export function insertAfter(html, marker, text) {
  if (!html.includes(marker)) throw new Error(`the built view has no ${marker} to insert after`);
  return html.replace(marker, () => `${marker}${text}`);
}

const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The document with its CSP: every inline script and style allowed by its hash, nothing else from anywhere. */
export function withCsp(html) {
  // The scripts that run (module or classic); an inert data element would need no hash.
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter((m) => !/\btype="(?!module")[^"]*"/.test(m[1])).map((m) => sha256(m[2]));
  const styles = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/g)].map((m) => sha256(m[1]));
  const policy = [
    "default-src 'none'",
    `script-src ${scripts.join(' ') || "'none'"}`,
    // Inline style attributes (React Flow's positioning, set through the CSSOM, needs none; the hashes cover <style>).
    `style-src ${styles.join(' ') || "'none'"} 'unsafe-hashes'`,
    'img-src data:',
    'font-src data:',
    "connect-src 'none'",
    // ELK's worker, from the blob: URL the view's own script makes of the script it read through the host; it
    // inherits this policy.
    'worker-src blob:',
    "frame-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
  return insertAfter(html, '<head>', `\n    ${meta}`);
}

/** Builds every view (after the dashboard's own build, into its sibling folder). */
export async function buildViews(root, outDir, base) {
  const tmp = path.join(outDir, '.build');
  for (const view of VIEWS) {
    await build({
      configFile: false,
      root,
      base: './',
      logLevel: 'warn',
      oxc: base.oxc,
      plugins: [elkOnThePage(root), viteSingleFile({ removeViteModuleLoader: true })],
      build: {
        outDir: tmp,
        emptyOutDir: true,
        sourcemap: false,
        chunkSizeWarningLimit: 4000,
        rollupOptions: { input: path.join(root, 'views', `${view}.html`), onwarn: base.onwarn },
      },
    });
    const built = path.join(tmp, 'views', `${view}.html`);
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(path.join(outDir, `${view}.html`), withCsp(fs.readFileSync(built, 'utf8')));
  }
  writeElkWorker(outDir);
  fs.rmSync(tmp, { recursive: true, force: true });
}
