/**
 * The request target of an HTTP request, checked before any handler sees it. Handlers route on `path` and read
 * `url`; neither can surprise them: the path is an RFC 3986 absolute path with no empty or dot segments (raw or
 * percent-encoded), every escape decodes as UTF-8 to no control character, and the WHATWG URL parser leaves it as it
 * is (so `url.pathname === path`: no normalization moves a request from one mount to another).
 */
export interface RequestTarget {
  /** The path as sent, percent-escapes kept (`/dashboard/api/projects/a%2Fb/tasks`). */
  path: string;
  /** `?…` as sent, or ''. Never logged (it may carry `?token=`). */
  search: string;
  /** path + search parsed against a placeholder origin (for `searchParams`). */
  url: URL;
}

export type TargetCheck = { ok: true; target: RequestTarget } | { ok: false; status: 400 | 414; message: string };

/** Longest request target answered (path and query); longer is 414. Node itself answers 431 past 16 KiB of headers. */
export const MAX_TARGET_LENGTH = 8 * 1024;

/** RFC 3986 `pchar` plus `/`, with `%` checked separately. */
const PATH_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
/** Anything but controls, space, `#` and non-ASCII in the query (browsers leave `|`, `[`, `{` … unescaped there). */
const QUERY_CHARS = /^[\x21-\x22\x24-\x7e]*$/;
const BAD_ESCAPE = /%(?![0-9A-Fa-f]{2})/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/;

const refuse = (message: string): TargetCheck => ({ ok: false, status: 400, message });

/** Checks `req.url` as Node received it (origin-form only: `/path?query`). */
export function checkRequestTarget(raw: string | undefined): TargetCheck {
  const target = raw ?? '';
  if (target.length > MAX_TARGET_LENGTH) return { ok: false, status: 414, message: `request target longer than ${MAX_TARGET_LENGTH} characters` };
  if (!target.startsWith('/')) {
    // absolute-form (`GET http://host/path`) is for proxies, asterisk-form (`OPTIONS *`) names no resource here.
    return refuse('request target: expected a path starting with / (origin-form), not an absolute URI or *');
  }
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const search = q < 0 ? '' : target.slice(q);
  if (!PATH_CHARS.test(path)) return refuse('path: characters outside RFC 3986 (percent-encode spaces, quotes, #, \\ and non-ASCII)');
  if (!QUERY_CHARS.test(search.slice(1))) return refuse('query: control characters, spaces or # are not allowed');
  if (BAD_ESCAPE.test(path)) return refuse('path: a % not followed by two hex digits');
  const segments = path.split('/').slice(1);
  for (let i = 0; i < segments.length; i++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segments[i]);
    } catch {
      return refuse('path: a percent-escape that is not UTF-8');
    }
    if (decoded === '' && i < segments.length - 1) return refuse('path: an empty segment (//)');
    if (decoded === '.' || decoded === '..') return refuse('path: a . or .. segment');
    if (CONTROL.test(decoded)) return refuse('path: an escaped control character (such as %00)');
  }
  let url: URL;
  try {
    url = new URL(target, 'http://localhost');
  } catch {
    return refuse('request target: not a valid URL path');
  }
  // Belt and braces: what the routes see is exactly what was checked.
  if (url.pathname !== path) return refuse('path: not in normal form');
  return { ok: true, target: { path, search, url } };
}

/** The request target as logged: the path, the query replaced (it may carry `?token=`), cut to 200 characters. */
export function loggedTarget(raw: string | undefined): string {
  const target = raw ?? '';
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  return q < 0 ? shown : `${shown}?<redacted>`;
}
