/**
 * The one errors module of workgraph.
 *
 * Every error a use case throws is a {@link WorkgraphError} with a stable, snake_case `code`. The RPC layer maps
 * errors to MCP results in one place (`infrastructure/rpc/error-mapper.ts`): the code goes into
 * `_meta["workgraph/errorCode"]` and at the start of the text, the message follows. Messages are one line, name the
 * field, file or id at fault, and say what was expected. Structured fields are kept on `details` for programmatic use.
 *
 * Codes are part of the public contract (spec/mcp-api.md): never rename one, only add.
 */

/** Stable error codes. */
export const ErrorCodes = {
  InvalidArguments: 'invalid_arguments',
  NotFound: 'not_found',
  InvalidWorkflow: 'invalid_workflow',
  InvalidGraph: 'invalid_graph',
  PathNotAllowed: 'path_not_allowed',
  UnsafePath: 'unsafe_path',
  AlreadyExists: 'already_exists',
  InvalidTransition: 'invalid_transition',
  Conflict: 'conflict',
  CycleDetected: 'cycle_detected',
  HasDependents: 'has_dependents',
  HasProgress: 'has_progress',
  Claimed: 'claimed',
  ExecutionLimit: 'execution_limit',
  ExpressionError: 'expression_error',
  ExternalToolError: 'external_tool_error',
  CommandFailed: 'command_failed',
  Cancelled: 'cancelled',
  StorageError: 'storage_error',
  LockError: 'lock_error',
  InvalidToken: 'invalid_token',
  StorageUnavailable: 'storage_unavailable',
  Forbidden: 'forbidden',
  ResourceLimit: 'resource_limit',
  LimitExceeded: 'limit_exceeded',
  Internal: 'internal_error',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

/** Base class of every error workgraph throws on purpose. */
export class WorkgraphError extends Error {
  /** Stable machine-readable code. */
  readonly code: ErrorCode;
  /** Structured fields describing the failure (ids, paths, statuses). Never contains secrets or whole inputs. */
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(oneLine(message), options);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
}

/**
 * Thrown when input does not have the expected shape or value: a tool argument failing its JSON Schema, an unknown
 * step id, a malformed condition. `field` names the offending field as a JSON pointer or dotted path when known.
 */
export class InvalidArgumentsError extends WorkgraphError {
  constructor(message: string, readonly field?: string, details: Record<string, unknown> = {}) {
    super(ErrorCodes.InvalidArguments, message, { ...details, ...(field !== undefined ? { field } : {}) });
  }
}

/** Thrown when a named thing (workflow, step, project, node, execution, tool) does not exist. */
export class NotFoundError extends WorkgraphError {
  constructor(readonly kind: string, readonly id: string, message?: string) {
    super(ErrorCodes.NotFound, message ?? `${kind} '${id}' not found`, { kind, id });
  }
}

/** Thrown when a workflow file exists but is invalid (bad JSON or fails the workflow schema); says which file and why. */
export class InvalidWorkflowError extends WorkgraphError {
  constructor(readonly workflowId: string, readonly file: string | undefined, readonly reason: string) {
    super(ErrorCodes.InvalidWorkflow, `workflow '${workflowId}' is invalid${file ? ` (${file})` : ''}: ${reason}`, {
      workflowId,
      file,
      reason,
    });
  }
}

/** Thrown when a graph config fails to load: schema, references, reachability, expression syntax, name clashes. */
export class InvalidGraphError extends WorkgraphError {
  constructor(message: string, details: { file?: string; tool?: string; node?: string; line?: number } = {}) {
    super(ErrorCodes.InvalidGraph, message, details);
  }
}

/** Thrown when a folder an agent names (projectRoot, targetDirectory) lies outside the allowed roots. */
export class PathNotAllowedError extends WorkgraphError {
  constructor(readonly path: string, readonly roots: readonly string[], field?: string) {
    super(
      ErrorCodes.PathNotAllowed,
      `${field ? `${field}: ` : ''}'${path}' is outside the allowed roots (${roots.join(', ') || 'none'})`,
      { path, roots, field },
    );
  }
}

/**
 * Thrown when an id or file name could escape its folder: `..` segments, absolute paths, NUL bytes, path separators
 * where a plain name is expected, or a symlink resolving outside the folder.
 */
export class UnsafePathError extends WorkgraphError {
  constructor(readonly value: string, readonly reason: string, field?: string) {
    super(ErrorCodes.UnsafePath, `${field ? `${field}: ` : ''}${JSON.stringify(value)} is not a safe name: ${reason}`, {
      value,
      reason,
      field,
    });
  }
}

/** Thrown when creating something that already exists and the caller did not ask to replace it. */
export class AlreadyExistsError extends WorkgraphError {
  constructor(readonly kind: string, readonly id: string, hint?: string) {
    super(ErrorCodes.AlreadyExists, `${kind} '${id}' already exists${hint ? `; ${hint}` : ''}`, { kind, id });
  }
}

/**
 * Thrown when a state machine refuses a transition (tasks). The message states the current status and which calls
 * are allowed from it.
 */
export class InvalidTransitionError extends WorkgraphError {
  constructor(
    readonly entity: string,
    readonly from: string,
    readonly attempted: string,
    readonly allowed: readonly string[],
  ) {
    super(
      ErrorCodes.InvalidTransition,
      `${entity} is ${from}; ${attempted} is not allowed from ${from}` +
        (allowed.length ? ` (allowed: ${allowed.join(', ')})` : ' (no further calls are allowed)'),
      { entity, from, attempted, allowed },
    );
  }
}

/** Thrown when a compare-and-swap lost a race: the state changed between read and write (another process won). */
export class ConflictError extends WorkgraphError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(ErrorCodes.Conflict, message, details);
  }
}

/**
 * Thrown when a session token (continue, retry or checkpoint token) is forged, truncated, altered or was signed by
 * another data dir's key. The message says which argument and where to get a valid token.
 */
export class InvalidTokenError extends WorkgraphError {
  constructor(readonly field: string, reason: string) {
    super(ErrorCodes.InvalidToken, `${field}: not a valid session token (${reason}); use a token from workflow_start, workflow_continue, workflow_checkpoint or workflow_resume`, { field, reason });
  }
}

/** Thrown when a dependency graph has a cycle; `cycle` lists it, first id repeated at the end (`a -> b -> a`). */
export class CycleDetectedError extends WorkgraphError {
  constructor(readonly cycle: readonly string[]) {
    super(ErrorCodes.CycleDetected, `dependency cycle: ${cycle.join(' -> ')}`, { cycle });
  }
}

/** Thrown when an operation is refused because other items depend on the target (e.g. resetting a task). */
export class HasDependentsError extends WorkgraphError {
  constructor(message: string, readonly dependents: readonly string[]) {
    super(ErrorCodes.HasDependents, message, { dependents });
  }
}

/** Thrown when an edit is refused because the task has work in progress (IN_PROGRESS, VALIDATING, RETRYING, or done). */
export class HasProgressError extends WorkgraphError {
  constructor(message: string, readonly nodes: readonly string[]) {
    super(ErrorCodes.HasProgress, message, { nodes });
  }
}

/** Thrown when another agent holds the claim on a task: names the claimant and when the claim lapses. */
export class ClaimedError extends WorkgraphError {
  constructor(message: string, details: { node: string; claimant: string; expiresAt: string }) {
    super(ErrorCodes.Claimed, message, details);
  }
}

/** Thrown when a run exceeds a configured limit (node executions, time, output size, iterations). */
export class ExecutionLimitError extends WorkgraphError {
  constructor(readonly limit: string, readonly value: number, message?: string) {
    super(ErrorCodes.ExecutionLimit, message ?? `execution limit ${limit} (${value}) exceeded`, { limit, value });
  }
}

/**
 * Thrown when a request would pass a configured size limit of what is stored (one output's artifacts, a session's
 * log): refused before anything is written. `limit` names the setting that raises it.
 */
export class LimitExceededError extends WorkgraphError {
  constructor(message: string, details: { limit: string; max: number; size: number; field?: string; [k: string]: unknown }) {
    super(ErrorCodes.LimitExceeded, message, details);
  }
}

/** Thrown when a JSONata / JSON Logic expression fails to compile or evaluate (syntax, runtime, time or depth limit). */
export class ExpressionError extends WorkgraphError {
  constructor(message: string, details: { node?: string; expression?: string; position?: number } = {}) {
    super(ErrorCodes.ExpressionError, message, details);
  }
}

/** Thrown when an external MCP tool called by a graph fails (isError, transport error, server exit). */
export class ExternalToolError extends WorkgraphError {
  constructor(message: string, details: { node?: string; server?: string; tool?: string; stderrTail?: string } = {}) {
    super(ErrorCodes.ExternalToolError, message, details);
  }
}

/** Thrown when a command could not be started at all (not when it exits non-zero: that is a result). */
export class CommandFailedError extends WorkgraphError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(ErrorCodes.CommandFailed, message, details);
  }
}

/** Thrown when the caller cancelled the operation (MCP notifications/cancelled, AbortSignal). */
export class CancelledError extends WorkgraphError {
  constructor(message = 'operation cancelled') {
    super(ErrorCodes.Cancelled, message);
  }
}

/** Thrown when reading or writing a data file fails (I/O error, corrupt file that cannot be worked around). */
export class StorageError extends WorkgraphError {
  constructor(message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(ErrorCodes.StorageError, message, details, options);
  }
}

/**
 * Thrown when the database behind a store cannot be reached (down, restarting, unreachable, connection lost): the call
 * did not happen or was rolled back, and can be retried (`details.retryable` is true; the MCP answer carries
 * `_meta["workgraph/retryable"]: true`). Never carries the connection password.
 */
export class StorageUnavailableError extends WorkgraphError {
  readonly retryable = true;
  constructor(message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(ErrorCodes.StorageUnavailable, message, { ...details, retryable: true }, options);
  }
}

/**
 * Thrown when the caller's identity lacks the scope a call needs (a `read` token writing, a token without `run` asking
 * for a validation). Only for what the caller may see: something outside its reach is a {@link NotFoundError}, so a
 * refusal never confirms that another identity's record exists.
 */
export class ForbiddenError extends WorkgraphError {
  constructor(readonly scope: string, readonly action: string, readonly identity: string, readonly granted: readonly string[]) {
    super(
      ErrorCodes.Forbidden,
      `${action} needs the '${scope}' scope; identity '${identity}' has ${granted.length ? granted.map((s) => `'${s}'`).join(', ') : 'no scope'}`,
      { scope, action, identity, granted },
    );
  }
}

/**
 * Thrown when a client session asks for more of a per-session resource than the server grants it (resource
 * subscriptions beyond `--max-subscriptions`): nothing was taken; free some (unsubscribe) and ask again.
 */
export class ResourceLimitError extends WorkgraphError {
  constructor(readonly resource: string, readonly limit: number, message: string) {
    super(ErrorCodes.ResourceLimit, message, { resource, limit });
  }
}

/** Thrown when a cross-process lock cannot be taken in time, or was compromised while held. */
export class LockError extends WorkgraphError {
  constructor(message: string, details: Record<string, unknown> = {}, options?: { cause?: unknown }) {
    super(ErrorCodes.LockError, message, details, options);
  }
}

/** Collapse a message to one line: error texts go into one-line tool results and `file:line:col: message` output. */
export function oneLine(message: string): string {
  return message.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** Narrowing helper. */
export function isWorkgraphError(e: unknown): e is WorkgraphError {
  return e instanceof WorkgraphError;
}
