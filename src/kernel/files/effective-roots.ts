import * as path from 'node:path';
import { isInside } from './safe-name';

/**
 * The roots in force, as a pure function of the operator's roots (`--allow-root`, WORKGRAPH_ALLOWED_ROOTS) and the
 * client's MCP roots, all absolute real paths (docs/configuration.md "Allowed roots"):
 * - operator roots set: a client's roots can only narrow them — the answer is the intersection (for each pair, the
 *   deeper of the two when one contains the other). A client root that overlaps no operator root adds nothing, so a
 *   client answering `file:///` gets exactly the operator roots, and one naming only other folders gets none.
 * - no operator roots: the client's roots stand (the person configured their client); without them the defaults.
 * - a client that offers no roots (undefined or an empty list) leaves the operator roots, else the defaults.
 * Kept free of I/O and of any session state so it can serve one session or many.
 */
export function effectiveRoots(
  operatorRoots: readonly string[],
  clientRoots: readonly string[] | undefined,
  defaults: readonly string[],
): string[] {
  const client = clientRoots && clientRoots.length > 0 ? clientRoots : undefined;
  if (operatorRoots.length === 0) return unique(client ?? defaults);
  if (!client) return unique(operatorRoots);
  return intersectRoots(operatorRoots, client);
}

/**
 * The roots in force for an identity whose own roots are `identityRoots` (a token line's `roots=`; undefined: no
 * narrowing): {@link effectiveRoots} narrowed to them. Only ever narrower: an identity's roots that overlap none in
 * force give none — never the defaults.
 */
export function identityEffectiveRoots(
  operatorRoots: readonly string[],
  clientRoots: readonly string[] | undefined,
  defaults: readonly string[],
  identityRoots: readonly string[] | undefined,
): string[] {
  if (identityRoots === undefined) return effectiveRoots(operatorRoots, clientRoots, defaults);
  // The identity's roots take the operator's place when the operator set none (an operator who gives tokens roots
  // has chosen them); with operator roots, the intersection.
  const base = operatorRoots.length === 0 ? unique(identityRoots) : intersectRoots(operatorRoots, identityRoots);
  const client = clientRoots && clientRoots.length > 0 ? clientRoots : undefined;
  return client ? intersectRoots(base, client) : base;
}

/** For each pair, the deeper of the two when one contains the other. */
function intersectRoots(a: readonly string[], b: readonly string[]): string[] {
  const out: string[] = [];
  for (const o of a) {
    for (const c of b) {
      if (isInside(o, c)) out.push(c);
      else if (isInside(c, o)) out.push(o);
    }
  }
  return unique(out);
}

/** Distinct normalized paths, dropping any path inside another of the list (it adds nothing). */
function unique(roots: readonly string[]): string[] {
  const normalized = [...new Set(roots.map((r) => path.resolve(r)))];
  return normalized.filter((r, i) => !normalized.some((other, j) => j !== i && other !== r && isInside(other, r)));
}
