import { ErrorCodes, isWorkgraphError, oneLine, type ErrorCode } from '../../kernel/errors';

/** HTTP status of each stable error code; the body carries the same `{code, message}` the MCP tools answer with. */
const STATUS: Partial<Record<ErrorCode, number>> = {
  [ErrorCodes.InvalidArguments]: 400,
  [ErrorCodes.NotFound]: 404,
  [ErrorCodes.PathNotAllowed]: 403,
  [ErrorCodes.UnsafePath]: 400,
  [ErrorCodes.AlreadyExists]: 409,
  [ErrorCodes.InvalidTransition]: 409,
  [ErrorCodes.Conflict]: 409,
  [ErrorCodes.HasDependents]: 409,
  [ErrorCodes.HasProgress]: 409,
  [ErrorCodes.Claimed]: 409,
  [ErrorCodes.CycleDetected]: 400,
  [ErrorCodes.InvalidGraph]: 422,
  [ErrorCodes.InvalidWorkflow]: 422,
  [ErrorCodes.LockError]: 503,
};

export interface HttpError {
  status: number;
  body: { error: { code: string; message: string } };
}

/** Any thrown value as an HTTP answer; unexpected errors are `internal_error` with a one-line message. */
export function toHttpError(e: unknown): HttpError {
  if (isWorkgraphError(e)) return { status: STATUS[e.code] ?? 500, body: { error: { code: e.code, message: e.message } } };
  const message = oneLine(e instanceof Error ? e.message : String(e)) || 'internal error';
  return { status: 500, body: { error: { code: ErrorCodes.Internal, message } } };
}

export function httpError(status: number, code: string, message: string): HttpError {
  return { status, body: { error: { code, message } } };
}
