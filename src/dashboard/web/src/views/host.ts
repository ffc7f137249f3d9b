/**
 * An MCP Apps view's side of the host bridge (the `io.modelcontextprotocol/ui` extension, through the extension's
 * own App class): the tool input and results the host hands the view, the host's context (theme, style variables,
 * display mode, container size), and tool calls back through the host — under the caller's identity and scopes, as
 * an agent's call would be. Nothing here touches the network: the document's CSP allows none (vite.config.mjs).
 */
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { App, PostMessageTransport, applyDocumentTheme, applyHostFonts, applyHostStyleVariables, type McpUiHostContext } from '@modelcontextprotocol/ext-apps';
import { RESOURCE_CHANGES_TOOL, mergeAnswers, pollDelay, staleResources, type ChangesAnswer } from './live';

/** The settings the server wrote into the document (`<meta name="workgraph-view">`, src/server/mcp-apps.ts). */
export interface ViewSettings {
  /** The server allows the views' actions for this caller (`--allow-actions` and the `write` scope). */
  actions: boolean;
  /** The server serves the app-only `resource_changes` tool: the view polls it to stay live (useResourceChanges). */
  live: boolean;
}

export function viewSettings(): ViewSettings {
  const raw = document.querySelector('meta[name="workgraph-view"]')?.getAttribute('content');
  try {
    const parsed = raw ? (JSON.parse(raw) as Partial<ViewSettings>) : {};
    return { actions: parsed.actions === true, live: parsed.live === true };
  } catch {
    return { actions: false, live: false };
  }
}

/** A tool result as the view uses it: the structured content, or the error's text. */
export interface ToolResult {
  structured?: Record<string, unknown>;
  /** The result's `_meta`: what the server adds for views only (graph_inspect's `workgraph/runGraph`). */
  meta?: Record<string, unknown>;
  error?: string;
}

interface HostState {
  connected: boolean;
  error?: string;
  context: McpUiHostContext;
  input?: Record<string, unknown>;
  /** Every result handed to the view, newest last (a later result updates the view). */
  results: ToolResult[];
}

let state: HostState = { connected: false, context: {}, results: [] };
const listeners = new Set<() => void>();
function update(next: Partial<HostState>): void {
  state = { ...state, ...next };
  for (const l of listeners) l();
}

function textOf(result: { content?: Array<{ type: string; text?: string }> }): string {
  return (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text ?? '').join('\n').trim();
}

function toResult(r: { isError?: boolean; structuredContent?: Record<string, unknown>; content?: Array<{ type: string; text?: string }>; _meta?: Record<string, unknown> }): ToolResult {
  if (r.isError) return { error: textOf(r) || 'the tool call failed' };
  return { structured: r.structuredContent ?? undefined, ...(r._meta ? { meta: r._meta } : {}) };
}

function applyContext(ctx: McpUiHostContext): void {
  if (ctx.theme) applyDocumentTheme(ctx.theme);
  if (ctx.styles?.variables) applyHostStyleVariables(ctx.styles.variables);
  if (ctx.styles?.css?.fonts) applyHostFonts(ctx.styles.css.fonts);
  const root = document.documentElement;
  if (ctx.displayMode) root.dataset.displayMode = ctx.displayMode;
  const dims = ctx.containerDimensions as { height?: number; maxHeight?: number } | undefined;
  // The drawing's height: the frame's, less the view's title and counts lines.
  const frame = dims?.height ?? (dims?.maxHeight ? Math.min(dims.maxHeight, 720) : undefined);
  if (frame) root.style.setProperty('--view-height', `${Math.max(240, frame - 96)}px`);
}

let app: App | undefined;
let connected: Promise<void> | undefined;

/** Connects once to the host (the window that framed this document). */
export function connectHost(name: string): App {
  if (app) return app;
  app = new App({ name: `workgraph ${name}`, version: '1' }, { availableDisplayModes: ['inline', 'fullscreen'] }, { autoResize: true });
  app.ontoolinput = (p) => update({ input: p.arguments ?? {} });
  app.ontoolresult = (r) => {
    // When the result was in the view's hand (past the bridge), for profiling (bench/mcp-apps-render.js reads it).
    performance.mark('workgraph:tool-result');
    update({ results: [...state.results, toResult(r as never)] });
  };
  app.onhostcontextchanged = (ctx) => {
    const context = { ...state.context, ...ctx };
    applyContext(context);
    update({ context });
  };
  connected = app.connect(new PostMessageTransport(window.parent, window.parent));
  connected
    .then(() => {
      const context = app!.getHostContext() ?? {};
      applyContext(context);
      update({ connected: true, context: { ...context, ...state.context } });
    })
    .catch((e: Error) => update({ error: `could not connect to the host: ${e.message}` }));
  return app;
}

/** The host's state, re-rendering on every change. */
export function useHost(): HostState {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => state,
  );
}

/** Calls a server tool through the host; rejects with the tool's error text. */
export async function callTool<T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T> {
  return ((await callToolResult(name, args)).structured ?? {}) as T;
}

/** Calls a server tool through the host: its structured content and `_meta`; rejects with the tool's error text. */
export async function callToolResult(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  if (!app) throw new Error('not connected to the host');
  const r = await app.callServerTool({ name, arguments: args });
  const result = toResult(r as never);
  if (result.error !== undefined) throw new Error(result.error);
  return result;
}

/** A read through the host that failed; `retryable`: the host passes reads, so another try may succeed. */
export class HostReadError extends Error {
  constructor(message: string, readonly retryable: boolean) {
    super(message);
  }
}

/**
 * Reads one of the server's binary resources through the host (`resources/read`, the host's `serverResources`
 * capability): its bytes, base64 as the result holds them. Rejects with a one-line reason (a HostReadError) where the
 * host offers no resource reads (not retryable), the read fails or the resource holds no blob (retryable).
 */
export async function readServerBlob(uri: string): Promise<string> {
  if (!app || !connected) throw new HostReadError('not connected to the host', false);
  await connected;
  if (!app.getHostCapabilities()?.serverResources) throw new HostReadError('this host does not pass resource reads from views to the server', false);
  let r: Awaited<ReturnType<App['readServerResource']>>;
  try {
    r = await app.readServerResource({ uri });
  } catch (e) {
    throw new HostReadError(`the host could not read ${uri}: ${(e as Error).message}`, true);
  }
  const content = r.contents.find((c) => c.uri === uri) ?? r.contents[0];
  if (!content || !('blob' in content) || typeof content.blob !== 'string') throw new HostReadError(`${uri} came back without its bytes`, true);
  return content.blob;
}

/** Asks the host for another display mode (inline ⇄ fullscreen) where it offers one. */
export function useDisplayMode(): { mode: string; canToggle: boolean; toggle: () => void } {
  const { context } = useHost();
  const mode = context.displayMode ?? 'inline';
  const canToggle = (context.availableDisplayModes ?? []).includes(mode === 'fullscreen' ? 'inline' : 'fullscreen');
  return {
    mode,
    canToggle,
    toggle: () => void app?.requestDisplayMode({ mode: mode === 'fullscreen' ? 'inline' : 'fullscreen' }).catch(() => undefined),
  };
}

/**
 * Calls `load` again when the view becomes visible again or its frame gets focus after a while (changes made
 * meanwhile); not more often than every 10 s (a click into the frame focuses it too).
 */
export function useRefreshOnReturn(load: () => void): void {
  useEffect(() => {
    let last = Date.now();
    const on = () => {
      if (document.visibilityState !== 'visible' || Date.now() - last < 10_000) return;
      last = Date.now();
      load();
    };
    document.addEventListener('visibilitychange', on);
    window.addEventListener('focus', on);
    return () => {
      document.removeEventListener('visibilitychange', on);
      window.removeEventListener('focus', on);
    };
  }, [load]);
}

/** A value kept in state and set from async work, with its error. */
export function useAsync<T>(): [T | undefined, string | undefined, (p: Promise<T>) => void] {
  const [value, setValue] = useState<T>();
  const [error, setError] = useState<string>();
  return [
    value,
    error,
    (p) =>
      void p.then(
        (v) => {
          setValue(v);
          setError(undefined);
        },
        (e: Error) => setError(e.message),
      ),
  ];
}

/** Sends a message to the chat as the person (where the host takes messages); false when it does not. */
export async function sendChatMessage(text: string): Promise<boolean> {
  if (!app?.getHostCapabilities()?.message) return false;
  const r = await app.sendMessage({ role: 'user', content: [{ type: 'text', text }] });
  return !r.isError;
}

/** How often a view asks whether what it shows changed (about; jittered, backing off on failures). */
export const POLL_MS = 2_000;
/** Changes heard this close together are re-read once. */
const SETTLE_MS = 250;

/**
 * Keeps a view live: while it is visible, asks the server every ~2 s (the app-only `resource_changes` tool, through
 * the host: a few dozen bytes per answer) when the resources it shows last changed, and calls `reread` with the URIs
 * that changed since — a change made by another client, another agent or the CLI — debounced. The extension gives a
 * view no resource subscription (docs/mcp-apps.md "Live views"); without the tool (an older server, `live` false) the
 * view still re-reads on focus, Refresh and its own actions. `rereadFirst`: the first answer re-reads too (live.ts).
 * Polls stop when `uris` is empty (a graph run that ended).
 */
export function useResourceChanges(uris: readonly string[], reread: (uris: string[]) => void, options: { rereadFirst?: boolean } = {}): void {
  const rereadFirst = options.rereadFirst === true;
  const latest = useRef(reread);
  latest.current = reread;
  const key = uris.join('\n');
  useEffect(() => {
    const watched = key ? key.split('\n') : [];
    if (!viewSettings().live || watched.length === 0) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settle: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let known: ChangesAnswer | undefined;
    const pending = new Set<string>();
    const schedule = () => {
      if (stopped) return;
      clearTimeout(timer);
      timer = document.visibilityState === 'visible' ? setTimeout(poll, pollDelay(POLL_MS, failures)) : undefined;
    };
    const poll = async () => {
      try {
        const answer = await callTool<ChangesAnswer>(RESOURCE_CHANGES_TOOL, { resources: watched });
        if (stopped) return;
        for (const uri of staleResources(known, answer, rereadFirst)) pending.add(uri);
        known = mergeAnswers(known, answer);
        failures = 0;
        if (pending.size && !settle) {
          settle = setTimeout(() => {
            settle = undefined;
            const due = [...pending];
            pending.clear();
            if (!stopped) latest.current(due);
          }, SETTLE_MS);
        }
      } catch {
        failures++;
      }
      schedule();
    };
    // Hidden (scrolled away in a host that says so, a closed panel): no polls; visible again: one at once.
    const onVisibility = () => {
      if (document.visibilityState === 'visible') void poll();
      else clearTimeout(timer);
    };
    document.addEventListener('visibilitychange', onVisibility);
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
      clearTimeout(settle);
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [key, rereadFirst]);
}
