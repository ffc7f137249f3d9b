/**
 * Computes the dependents of a set of nodes — every node outside the set that descends from a node in it through
 * `parents`, transitively — from streaming passes over the graph, holding only the ids involved.
 *
 * Feed every node of a pass to {@link visit}; repeat passes while {@link endPass} returns true. Adds always append a
 * child after its parents, so in practice one pass finds everything and a second confirms the fixpoint; the loop
 * still converges for any line order (each extra pass adds at least one node, so at most |dependents| + 1 passes).
 */
export class DescendantCollector {
  /** The roots (the delete set) and every dependent found so far. */
  private readonly closure: Set<string>;
  private readonly roots: ReadonlySet<string>;
  private readonly found: string[] = [];
  private addedThisPass = false;

  constructor(roots: Iterable<string>) {
    this.roots = new Set(roots);
    this.closure = new Set(this.roots);
  }

  /** The ids a line must mention to matter (a live view: it grows as dependents are found). */
  get watched(): ReadonlySet<string> {
    return this.closure;
  }

  /** Looks at one node; returns true when it was newly found to be a dependent. */
  visit(id: string, parents: readonly string[]): boolean {
    if (this.closure.has(id)) return false;
    for (const p of parents) {
      if (this.closure.has(p)) {
        this.closure.add(id);
        this.found.push(id);
        this.addedThisPass = true;
        return true;
      }
    }
    return false;
  }

  /** Ends a pass; true when another pass is needed (something was added, so earlier lines may descend from it). */
  endPass(): boolean {
    const again = this.addedThisPass;
    this.addedThisPass = false;
    return again;
  }

  /** The dependents found, in discovery order (outside the roots). */
  dependents(): string[] {
    return [...this.found];
  }

  isRoot(id: string): boolean {
    return this.roots.has(id);
  }
}

/**
 * Dependents of `roots` within an in-memory node list (tests, small graphs): the same rule as the collector.
 */
export function dependentsOf(roots: Iterable<string>, nodes: Iterable<{ id: string; parents: readonly string[] }>): string[] {
  const list = [...nodes];
  const collector = new DescendantCollector(roots);
  do {
    for (const n of list) collector.visit(n.id, n.parents);
  } while (collector.endPass());
  return collector.dependents();
}

/**
 * For each root, how many of the dependents descend from it (for the `Node X has N dependent node(s)` warnings).
 * Runs over the dependents' own parent lists only (they are few and held anyway).
 */
export function dependentCountsPerRoot(
  roots: readonly string[],
  dependents: ReadonlyMap<string, readonly string[]>,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const root of roots) {
    const reached = new Set<string>([root]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const [id, parents] of dependents) {
        if (!reached.has(id) && parents.some((p) => reached.has(p))) {
          reached.add(id);
          grew = true;
        }
      }
    }
    counts.set(root, reached.size - 1);
  }
  return counts;
}
