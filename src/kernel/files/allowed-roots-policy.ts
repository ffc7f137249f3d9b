import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { InvalidArgumentsError, PathNotAllowedError, UnsafePathError } from '../errors';
import type { ClientRoots, PathPolicy } from '../path-policy';
import type { Identity } from '../identity';
import { identityEffectiveRoots } from './effective-roots';
import { isInside, realpathOfNearestExisting } from './safe-name';

/**
 * The trust boundary (docs/configuration.md "Allowed roots"): folders an agent names must lie inside the roots in force — see {@link effectiveRoots}:
 * operator roots (`--allow-root`, WORKGRAPH_ALLOWED_ROOTS) narrowed by the client's MCP roots, or the client's roots
 * when the operator set none, else the user's home folder and the system temp folder. Paths are compared after
 * following symlinks, so a link inside a root pointing out of it is refused. The client's roots come with each call
 * (its session's, through the CallContext), so one policy serves every session of a server.
 */
export class AllowedRootsPolicy implements PathPolicy {
  constructor(private readonly operatorRoots: readonly string[]) {}

  async allowedRoots(clientRoots?: ClientRoots, identity?: Identity): Promise<string[]> {
    const fromClient = clientRoots ? await clientRoots().catch(() => undefined) : undefined;
    const real = (list: readonly string[]) => Promise.all(list.map((r) => realpathOfNearestExisting(path.resolve(r))));
    const [operator, client, defaults, own] = await Promise.all([
      real(this.operatorRoots),
      fromClient ? real(fromClient) : Promise.resolve(undefined),
      real([os.homedir(), os.tmpdir()]),
      identity?.roots ? real(identity.roots) : Promise.resolve(undefined),
    ]);
    return identityEffectiveRoots(operator, client, defaults, own);
  }

  async resolveAllowedDirectory(
    p: string,
    field: string,
    opts: { mustExist?: boolean; clientRoots?: ClientRoots; identity?: Identity } = {},
  ): Promise<string> {
    if (typeof p !== 'string' || p.trim() === '') throw new InvalidArgumentsError(`${field}: expected a folder path`, field);
    if (p.includes('\0')) throw new UnsafePathError(p, 'contains a NUL byte', field);
    if (!path.isAbsolute(p)) throw new InvalidArgumentsError(`${field}: expected an absolute path, got '${p}'`, field);
    const real = await realpathOfNearestExisting(p);
    const roots = await this.allowedRoots(opts.clientRoots, opts.identity);
    if (!roots.some((root) => isInside(root, real))) throw new PathNotAllowedError(p, roots, field);
    if (opts.mustExist ?? true) {
      const stat = await fs.stat(real).catch(() => undefined);
      if (!stat) throw new InvalidArgumentsError(`${field}: '${p}' does not exist`, field);
      if (!stat.isDirectory()) throw new InvalidArgumentsError(`${field}: '${p}' is not a directory`, field);
    }
    return real;
  }
}
