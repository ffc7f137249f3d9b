/** The dashboard's JSON API client: the access token from the URL (kept for the tab), errors as one line. */
import { useEffect, useRef, useState, useCallback } from 'react';
import { changeCountOf, readBeforeStream, type ChangeCount } from './change-count';

const TOKEN_KEY = 'workgraph-dashboard-token';

function readToken(): string {
  const fromUrl = new URLSearchParams(window.location.search).get('token');
  // A sandboxed document (an MCP Apps view, which never calls this API) has no sessionStorage: reading it throws.
  let storage: Storage | undefined;
  try {
    storage = window.sessionStorage;
  } catch {
    storage = undefined;
  }
  if (fromUrl) {
    storage?.setItem(TOKEN_KEY, fromUrl);
    return fromUrl;
  }
  return storage?.getItem(TOKEN_KEY) ?? '';
}

export const token = readToken();

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
  }
}

export async function api<T>(path: string, init?: { method?: string; body?: unknown }): Promise<T> {
  return (await apiRead<T>(path, init)).body;
}

/** An API answer with the change count it was read at. */
export async function apiRead<T>(path: string, init?: { method?: string; body?: unknown }): Promise<{ body: T; changes: ChangeCount | undefined }> {
  const res = await fetch(`api${path}`, {
    method: init?.method ?? 'GET',
    headers: {
      Authorization: `Bearer ${token}`,
      ...(init?.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    body: init?.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await res.text();
  let json: any = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: reported below */
  }
  if (!res.ok) {
    const code = json?.error?.code ?? `http_${res.status}`;
    const message = json?.error?.message ?? (res.status === 401 ? 'unauthorized: open the URL printed by `workgraph dashboard` (it carries the access token)' : text || res.statusText);
    throw new ApiError(res.status, code, message);
  }
  // When each answer was in hand, parsed (bench/mcp-apps-render.js times the DAG page's render from its graph's).
  performance.mark('workgraph:api', { detail: path });
  return { body: json as T, changes: changeCountOf(res.headers.get('X-Workgraph-Changes')) };
}

/** A change event as the server streams it (one per store change). */
export interface ChangeEvent {
  kind: 'session' | 'tasks' | 'knowledge' | 'graph-run' | 'graph';
  project?: string;
  id?: string;
  at: string;
}

type Listener = (e: ChangeEvent) => void;
const listeners = new Set<Listener>();
let source: EventSource | undefined;
let connected = false;
const statusListeners = new Set<(c: boolean) => void>();

function ensureSource(): void {
  if (source || !token) return;
  source = new EventSource(`api/events?token=${encodeURIComponent(token)}`);
  source.addEventListener('change', (msg) => {
    const event = JSON.parse((msg as MessageEvent).data) as ChangeEvent;
    for (const l of listeners) l(event);
  });
  // The count the stream opened at: every change after it is streamed, so data read at a lower one may lack one.
  source.addEventListener('opened', (msg) => {
    streamOpenedAt = JSON.parse((msg as MessageEvent).data) as ChangeCount;
    for (const c of countListeners) c();
  });
  source.onopen = () => {
    // Back after a lost connection: changes made meanwhile were never streamed, so every live view reads again.
    if (lostConnection) for (const r of resyncListeners) r();
    lostConnection = false;
    setConnected(true);
  };
  source.onerror = () => {
    // Compared again once a new stream states its count (a restarted dashboard counts from 0 under a new instance).
    streamOpenedAt = undefined;
    lostConnection = true;
    setConnected(false);
  };
}

let lostConnection = false;
const resyncListeners = new Set<() => void>();
// The count the open stream opened at (none while it is down), and the live views that compare their data's with it.
let streamOpenedAt: ChangeCount | undefined;
const countListeners = new Set<() => void>();

function setConnected(c: boolean): void {
  connected = c;
  for (const l of statusListeners) l(c);
}

export function onChange(listener: Listener): () => void {
  ensureSource();
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useLiveStatus(): boolean {
  const [c, setC] = useState(connected);
  useEffect(() => {
    ensureSource();
    statusListeners.add(setC);
    return () => {
      statusListeners.delete(setC);
    };
  }, []);
  return c;
}

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | Error | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Loads `path` and loads it again whenever a change event passes `relevant` (debounced, so a burst of changes costs
 * one request). Only the resource the event names is fetched again, never everything. A live view (one with
 * `relevant`) also loads again when its data was read at a lower change count than the event stream opened at: a
 * change made between its fetch and the stream's start is never streamed to it (docs/architecture.md "The change
 * counter").
 */
export function useApi<T>(path: string | null, relevant?: (e: ChangeEvent) => boolean): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<Error>();
  const [loading, setLoading] = useState(true);
  const seq = useRef(0);
  // The change count the shown data was read at, and the live view's check of it (set while it listens).
  const readAt = useRef<ChangeCount | undefined>(undefined);
  const checkReadAt = useRef<() => void>(() => undefined);
  const load = useCallback(() => {
    if (!path) return;
    const mine = ++seq.current;
    apiRead<T>(path)
      .then((d) => {
        if (mine !== seq.current) return;
        setData(d.body);
        setError(undefined);
        readAt.current = d.changes;
        checkReadAt.current();
      })
      .catch((e: Error) => {
        if (mine === seq.current) setError(e);
      })
      .finally(() => {
        if (mine === seq.current) setLoading(false);
      });
  }, [path]);
  useEffect(() => {
    setLoading(true);
    setData(undefined);
    readAt.current = undefined;
    load();
  }, [load]);
  const relevantRef = useRef(relevant);
  relevantRef.current = relevant;
  useEffect(() => {
    if (!relevantRef.current) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const soon = () => {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        load();
      }, 100);
    };
    const off = onChange((e) => {
      if (relevantRef.current?.(e)) soon();
    });
    resyncListeners.add(soon);
    const check = () => {
      if (readBeforeStream(readAt.current, streamOpenedAt)) soon();
    };
    checkReadAt.current = check;
    countListeners.add(check);
    check();
    return () => {
      off();
      resyncListeners.delete(soon);
      countListeners.delete(check);
      checkReadAt.current = () => undefined;
      if (timer) clearTimeout(timer);
    };
  }, [load]);
  return { data, error, loading, reload: load };
}
