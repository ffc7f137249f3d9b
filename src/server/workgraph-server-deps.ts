import type { Identity } from '../kernel/identity';
import type { Logger } from '../kernel/logger';
import type { PinoLogger } from '../kernel/logging/pino-logger';
import type { CallTracker } from '../kernel/shutdown-coordinator';
import type { ToolDispatcher } from './tool-dispatcher';
import type { ToolRegistry } from '../kernel/tools/tool-registry';
import type { InjectionToken } from 'tsyringe';
import type { ChangeEvents } from '../kernel/change-events';
import type { ChangeReacher } from '../kernel/change-reach';
import type { ListenedResources } from './listened-resources';
import type { ProtocolEra } from './protocol-era';
import type { ProtocolState } from './protocol-state';
import type { AppsPolicy } from './mcp-apps';

/** The identity a server answers `initialize` with. */
export interface ServerIdentity {
  name: string;
  version: string;
  title?: string;
  instructions?: string;
}

/** What one session's protocol server (mcp-server.ts) is built from: the shared core's parts and this session's facts. */
export interface WorkgraphServerDeps {
  version: string;
  /** Default: workgraph, `version`, instructions naming the tool families. `--only-graphs` passes the graph's own. */
  identity?: ServerIdentity;
  registry: ToolRegistry;
  dispatcher: ToolDispatcher;
  logger: Logger;
  /** When given, log entries are forwarded as notifications/message once the client sets a level. */
  pinoLogger?: PinoLogger;
  /**
   * This session's calls: refused once shutdown started, tracked while they run (shutdown waits for them), and
   * cancelled through its signal when the grace period is over — every call's signal follows it.
   */
  calls: CallTracker;
  /** Resolves use cases for prompts and resources (the same lazily built container as the tools). */
  resolve?: <T>(token: InjectionToken<T>) => T;
  /** The process's change-event port: resource subscriptions of this session listen to it. */
  changeEvents?: ChangeEvents;
  /** The modules' change reachers: a change is announced only to subscribers whose identity reaches it. */
  reachers?: () => readonly ChangeReacher[];
  /** The modules served (prompts and resources follow them). */
  modules?: readonly string[];
  /** Resource subscriptions this session may hold (`--max-subscriptions`; default 1,000). */
  maxSubscriptions?: number;
  /**
   * Whether other sessions share this process (HTTP): then each call's log entries are attributed to this session and
   * forwarded to its client only. Off for stdio alone, the one session, which then skips the bookkeeping.
   */
  isolateLogs?: boolean;
  /**
   * Whom this session's calls run as when a request carries no verified token: the local identity (stdio, HTTP
   * without authentication). With tokens, each request runs as its token's identity (docs/http.md).
   */
  caller?: Identity;
  /**
   * The protocol era this server serves (protocol-era.ts): `legacy` (default; `initialize`, sessions, roots, logging,
   * sampling) or `modern` (2026-07-28: per request, no roots, changes on `subscriptions/listen`).
   */
  era?: ProtocolEra;
  /**
   * Whether this server sends change notifications itself (tool-list changes; resource updates when `changeEvents`
   * is given). Default true. Off for the per-request servers of modern HTTP: one request's server must not write
   * change events onto that request's answer; the HTTP entry publishes them on its `subscriptions/listen` bus.
   */
  announcesChanges?: boolean;
  /**
   * Whether connecting this server tracks its requests (request-tracking.ts). Default true. stdio tracks them on its
   * line transport instead, where they arrive before the SDK's entry has built this server, and passes `refused`.
   */
  tracksRequests?: boolean;
  /** Hears a workflow folder change (modern era: announced as a prompt-list change). */
  onWorkflowsChanged?: (listener: () => void) => () => void;
  /** The set request tracking marks refused requests in (default: this server's own). */
  refused?: Set<string | number>;
  /**
   * The modern era's state kept in the stores (built on first use): the tasks extension's tasks and the requestState
   * key. Without it, the modern era runs no tasks and asks no questions.
   */
  protocolState?: () => ProtocolState;
  /** Modern stdio: the URIs the connection's listen streams name (listened-resources.ts). */
  listened?: ListenedResources;
  /**
   * MCP Apps (mcp-apps.ts): whether tools announce their views and the `ui://workgraph/…` resources are served to
   * clients that declare the extension (`--no-ui` turns it off), and whether the views offer actions. Default off.
   */
  apps?: AppsPolicy;
}
