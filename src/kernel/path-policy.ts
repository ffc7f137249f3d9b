/**
 * The trust boundary for folders an agent names (docs/configuration.md "Allowed roots"): `projectRoot`, `targetDirectory`, ... must lie inside
 * the allowed roots — `--allow-root` / WORKGRAPH_ALLOWED_ROOTS narrowed by the client's MCP roots (never widened), or
 * the client's MCP roots when the operator set none, else the user's home folder and the system temp folder.
 */
import type { Identity } from './identity';

/** The client's MCP roots as folder paths, or undefined when the client offers none (read once per call). */
export type ClientRoots = () => Promise<string[] | undefined>;

export interface PathPolicy {
  /**
   * Resolves `path` (absolute, symlinks followed) and checks it is inside an allowed root.
   * @param field the argument name, used in the error message.
   * @param opts.mustExist default true: the folder must exist and be a directory.
   * @param opts.clientRoots the calling session's MCP roots (from its CallContext).
   * @param opts.identity the caller (from its CallContext): its roots narrow the operator's, never widen them.
   * @returns the resolved real path.
   * @throws PathNotAllowedError outside the roots; UnsafePathError for NUL bytes; InvalidArgumentsError when it must
   *   exist and does not, or is not a directory.
   */
  resolveAllowedDirectory(path: string, field: string, opts?: { mustExist?: boolean; clientRoots?: ClientRoots; identity?: Identity }): Promise<string>;
  /** The roots in force for a caller with these client roots and this identity (resolved real paths). */
  allowedRoots(clientRoots?: ClientRoots, identity?: Identity): Promise<string[]>;
}
