/**
 * What the server and the build write into a view's HTML (src/server/mcp-apps.ts withViewSettings, app-views.mjs
 * withCsp): inserted text arrives exactly as it is — `$&`, `$'`, `` $` ``, `$1` or `$$` in it are no replacement
 * patterns — and the views' assets the server serves are the ones the views read.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { insertAfter, servedAssets, withViewSettings } from '../../../src/server/mcp-apps';
import { VIEW_ASSETS } from '../../../src/kernel/tools/app-views';
import { ELK_WORKER_URI } from '../../../src/dashboard/web/src/views/assets';

const DOLLARS = "a$&b$'c$`d$1e$$f$<g>";

test('insertAfter puts text holding $ patterns in as it is, after the first marker only', () => {
  const html = '<html><head></head><body><head></body></html>';
  expect(insertAfter(html, '<head>', DOLLARS)).toBe(`<html><head>${DOLLARS}</head><body><head></body></html>`);
  expect(insertAfter('<p>no head</p>', '<head>', DOLLARS)).toBe(`${DOLLARS}<p>no head</p>`);
});

test("a view's settings go into its head as one escaped meta element; the document's own $ text is untouched", () => {
  const html = "<!doctype html><html><head><script>x.replace(/a/, '$&$1')</script></head><body></body></html>";
  const out = withViewSettings(html, { actions: true, live: false });
  expect(out).toBe(`<!doctype html><html><head><meta name="workgraph-view" content="{&quot;actions&quot;:true,&quot;live&quot;:false}"><script>x.replace(/a/, '$&$1')</script></head><body></body></html>`);
});

test("the build's CSP insertion (app-views.mjs) keeps text holding $ patterns as it is", () => {
  const mjs = path.resolve(__dirname, '../../../src/dashboard/web/app-views.mjs');
  const script = `
    const { insertAfter, withCsp } = await import(${JSON.stringify(mjs)});
    const doc = '<html><head><title>t</title></head><body><script type="module">a.replace(/x/g, "$$&")</script></body></html>';
    console.log(JSON.stringify({ inserted: insertAfter('<head></head>', '<head>', process.argv[1]), csp: withCsp(doc) }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script, DOLLARS], { encoding: 'utf8' })) as { inserted: string; csp: string };
  expect(out.inserted).toBe(`<head>${DOLLARS}</head>`);
  expect(out.csp).toMatch(/^<html><head>\n {4}<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'; /);
  expect(out.csp).toContain('<title>t</title></head><body><script type="module">a.replace(/x/g, "$$&")</script></body></html>');
});

test('the ELK worker script the views read is the asset the server serves, to the views that lay graphs out', () => {
  expect(VIEW_ASSETS['elk-worker'].uri).toBe(ELK_WORKER_URI);
  expect(servedAssets(['task-dag'])).toEqual(['elk-worker']);
  expect(servedAssets(['graph-run', 'session'])).toEqual(['elk-worker']);
  expect(servedAssets(['session', 'knowledge-search'])).toEqual([]);
});
