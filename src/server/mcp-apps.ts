import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ProtocolError } from '@modelcontextprotocol/server';
import { packageRoot } from '../kernel/config/package-root';
import { APP_VIEWS, APP_VIEW_TITLES, VIEW_ASSETS, appViewUri, type AppView, type ViewAsset } from '../kernel/tools/app-views';
import type { ToolDefinition } from '../kernel/tools/tool-definition';
import { hasScope, type Identity } from '../kernel/identity';
import { JsonRpcErrorCodes } from './json-rpc-codes';

/**
 * MCP Apps (the `io.modelcontextprotocol/ui` extension, docs/mcp-apps.md): the views a host renders inline next to a
 * tool call. The extension's facts, as its SDK (@modelcontextprotocol/ext-apps, server helpers) states them — held
 * here because that package is ESM-only and the server is CommonJS (tests/unit/server/mcp-apps.test.ts checks they
 * equal the package's constants):
 */
/** The extension's key in a client's `capabilities.extensions`. */
export const UI_EXTENSION_ID = 'io.modelcontextprotocol/ui';
/** The MIME type of a view's HTML document; a client that shows views lists it in its `mimeTypes`. */
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';
/** The older flat `_meta` key of a tool's view (hosts before `_meta.ui` read it; registerAppTool sets both). */
export const UI_RESOURCE_URI_LEGACY_KEY = 'ui/resourceUri';

/** The request's client capabilities in either era: modern requests carry them in their `_meta` envelope. */
export const CLIENT_CAPABILITIES_META_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** The views and their actions, as the server serves them to one client (off for hosts without the extension). */
export interface AppsPolicy {
  /** `--no-ui` turns the views off for every client. */
  enabled: boolean;
  /** `--allow-actions`: the views offer their actions (each a tool call through the host, under the caller's scopes). */
  actions: boolean;
}

/** Whether the client declared the extension with the views' MIME type. */
export function declaresApps(capabilities: unknown): boolean {
  const ext = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions?.[UI_EXTENSION_ID] as { mimeTypes?: unknown } | undefined;
  return Array.isArray(ext?.mimeTypes) && ext.mimeTypes.includes(UI_MIME_TYPE);
}

/**
 * The client capabilities a request runs under: the request's own envelope (2026-07-28) or the `initialize`-declared
 * ones (legacy), as the SDK hands them.
 */
export function requestCapabilities(ctx: { mcpReq?: { envelope?: Record<string, unknown> } } | undefined, initialized: unknown): unknown {
  return ctx?.mcpReq?.envelope?.[CLIENT_CAPABILITIES_META_KEY] ?? initialized;
}

/** A tool's `_meta` announcing its view, or undefined when it has none. */
export function toolUiMeta(def: Pick<ToolDefinition, 'view'>): Record<string, unknown> | undefined {
  if (!def.view) return undefined;
  const resourceUri = appViewUri(def.view);
  return { ui: { resourceUri }, [UI_RESOURCE_URI_LEGACY_KEY]: resourceUri };
}

/**
 * The views' resource metadata: no network at all (no connect, resource, frame or base-URI domains — the host's CSP
 * for the frame then allows nothing beyond its bridge) and a border from the host.
 */
export const VIEW_RESOURCE_META = { ui: { csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] }, prefersBorder: true } };

/** The views served to a client with these modules (a view whose tools are not served is not listed). */
export function servedViews(tools: readonly Pick<ToolDefinition, 'view'>[]): AppView[] {
  const used = new Set(tools.map((t) => t.view).filter((v): v is AppView => v !== undefined));
  return APP_VIEWS.filter((v) => used.has(v));
}

/** The `resources/list` entries of the views. */
export function viewResources(views: readonly AppView[]): Array<{ uri: string; name: string; title: string; description: string; mimeType: string; _meta: Record<string, unknown> }> {
  return views.map((view) => ({
    uri: appViewUri(view),
    name: `view ${view}`,
    title: APP_VIEW_TITLES[view].title,
    description: APP_VIEW_TITLES[view].description,
    mimeType: UI_MIME_TYPE,
    _meta: VIEW_RESOURCE_META,
  }));
}

const VIEW_URI = /^ui:\/\/workgraph\/([a-z-]+)$/;

/** The tools each view's actions call, and the scope every one of them needs (the dispatcher checks it again). */
const ACTION_SCOPE = 'write' as const;

/** Where the build puts the views (src/dashboard/web/vite.config.mjs): one HTML document each. */
export function viewsDir(): string {
  return path.join(packageRoot(), 'dist', 'dashboard', 'views');
}

/**
 * `resources/read` of a view (or of a view's asset, below): its HTML document, with the actions the caller may take written into it (a
 * `<meta name="workgraph-view">` the view reads: actions only with `--allow-actions` and the caller's `write`
 * scope; `live` when the server serves the app-only resource_changes tool the views poll, resource-changes.ts). Undefined when `uri` is not a `ui://workgraph/` URI; an unknown or unserved view is invalid params.
 */
export async function readView(uri: string, views: readonly AppView[], policy: AppsPolicy, caller: Identity, live = false): Promise<{ contents: Array<Record<string, unknown>> } | undefined> {
  const m = VIEW_URI.exec(uri);
  if (!uri.startsWith('ui://workgraph/')) return undefined;
  if (uri.startsWith('ui://workgraph/assets/')) return readAsset(uri, views);
  const view = m?.[1] as AppView | undefined;
  if (!view || !views.includes(view)) {
    throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, `unknown view ${JSON.stringify(uri)}; this server serves ${views.map(appViewUri).join(', ') || 'no views'}`);
  }
  const actions = policy.actions && hasScope(caller, ACTION_SCOPE);
  const html = withViewSettings(await builtFile(`${view}.html`, `the view ${view}`, 'utf8'), { actions, live });
  return { contents: [{ uri, mimeType: UI_MIME_TYPE, text: html, _meta: VIEW_RESOURCE_META }] };
}

const files = new Map<string, Promise<string>>();

/** A file of the views' build, read once (kept while the process runs: the build does not change under it). */
function builtFile(name: string, what: string, encoding: 'utf8' | 'base64'): Promise<string> {
  let file = files.get(name);
  if (!file) {
    const at = path.join(viewsDir(), name);
    file = fs.readFile(at, encoding).catch((e: NodeJS.ErrnoException) => {
      files.delete(name);
      throw new Error(e.code === 'ENOENT' ? `${what} is not built (${at} is missing): run npm run build` : `${what} could not be read: ${e.message}`);
    });
    files.set(name, file);
  }
  return file;
}

/** The views' assets served with these views (kernel/tools/app-views.ts VIEW_ASSETS: ELK's worker script). */
export function servedAssets(views: readonly AppView[]): ViewAsset[] {
  return (Object.keys(VIEW_ASSETS) as ViewAsset[]).filter((a) => VIEW_ASSETS[a].usedBy.some((v) => views.includes(v)));
}

/**
 * `resources/read` of a view's asset (`ui://workgraph/assets/…`): its bytes as a base64 `blob` (the build writes them
 * to dist/dashboard/views/assets/, app-views.mjs). Unlisted, as said at VIEW_ASSETS; an asset no served view uses is
 * invalid params.
 */
async function readAsset(uri: string, views: readonly AppView[]): Promise<{ contents: Array<Record<string, unknown>> }> {
  const served = servedAssets(views);
  const asset = served.find((a) => VIEW_ASSETS[a].uri === uri);
  if (!asset) {
    throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, `unknown view asset ${JSON.stringify(uri)}; this server serves ${served.map((a) => VIEW_ASSETS[a].uri).join(', ') || 'none'}`);
  }
  const name = uri.slice('ui://workgraph/'.length);
  return { contents: [{ uri, mimeType: VIEW_ASSETS[asset].mimeType, blob: await builtFile(name, `the views' asset ${asset}`, 'base64') }] };
}

/**
 * `text` inserted into `html` right after the first `marker` (or before everything when there is none): as it is,
 * whatever it holds — a function replacer, so `$&`, `$'` or `$1` in it are not replacement patterns.
 */
export function insertAfter(html: string, marker: string, text: string): string {
  return html.includes(marker) ? html.replace(marker, () => `${marker}${text}`) : text + html;
}

/** Writes the view's settings into its head (a meta element: inert, so the document's CSP need not allow it). */
export function withViewSettings(html: string, settings: { actions: boolean; live: boolean }): string {
  const content = JSON.stringify(settings).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return insertAfter(html, '<head>', `<meta name="workgraph-view" content="${content}">`);
}
