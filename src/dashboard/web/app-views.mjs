// The MCP Apps views (docs/mcp-apps.md): each src/dashboard/web/views/<view>.html built from the dashboard's own
// components into ONE self-contained HTML document, dist/dashboard/views/<view>.html (vite-plugin-singlefile inlines
// the script and the styles), its Content-Security-Policy written into it: no network at all (connect-src 'none'),
// only its own inline script and styles (by their sha256), images as data: URIs. The dashboard's build runs these
// builds when it is done (vite.config.mjs), so one `npm run build:dashboard` makes both.
import { build } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const VIEWS = ['task-dag', 'session', 'graph-run', 'knowledge-search'];

/** Views lay DAGs out on their main thread with the linear layout: ELK's worker would need worker-src (layout.ts). */
function noElkWorker() {
  return {
    name: 'workgraph-views-no-elk-worker',
    enforce: 'pre',
    resolveId(id) {
      return id.endsWith('elk-worker.min.js?url') ? '\0no-elk-worker' : undefined;
    },
    load(id) {
      return id === '\0no-elk-worker' ? 'export default "";' : undefined;
    },
  };
}

const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The document with its CSP: every inline script and style allowed by its hash, nothing else from anywhere. */
export function withCsp(html) {
  const scripts = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => sha256(m[1]));
  const styles = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/g)].map((m) => sha256(m[1]));
  const policy = [
    "default-src 'none'",
    `script-src ${scripts.join(' ') || "'none'"}`,
    // Inline style attributes (React Flow's positioning, set through the CSSOM, needs none; the hashes cover <style>).
    `style-src ${styles.join(' ') || "'none'"} 'unsafe-hashes'`,
    'img-src data:',
    'font-src data:',
    "connect-src 'none'",
    "worker-src 'none'",
    "frame-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
  return html.replace(/<head>/, `<head>\n    ${meta}`);
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
      plugins: [noElkWorker(), viteSingleFile({ removeViteModuleLoader: true })],
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
  fs.rmSync(tmp, { recursive: true, force: true });
}
