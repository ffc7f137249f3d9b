/**
 * The known name closest to `name` by edit distance (insertions, deletions, substitutions and swaps of neighbours —
 * the typos agents make: `workflow_lst`, `workflow_nxet`), when it is close enough to be a likely typo: at most a
 * third of the name's length (and at least 1) edits away. Undefined when nothing is that close.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = editDistance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const allowed = Math.max(1, Math.floor(name.length / 3));
  return best !== undefined && bestDistance > 0 && bestDistance <= allowed ? best : undefined;
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions), O(|a|·|b|). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[rows - 1]![cols - 1]!;
}

/**
 * The message of an unknown tool or method: the closest name when there is a likely one, and the names that exist
 * (so an agent can correct its call without another tools/list).
 */
export function unknownNameMessage(kind: 'tool' | 'method', name: string, known: readonly string[]): string {
  const shown = JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}...` : name);
  const guess = closestName(name, known);
  const list = known.length ? `${kind === 'tool' ? 'tools' : 'methods'}: ${[...known].sort().join(', ')}` : `no ${kind}s are served`;
  return `Unknown ${kind}: ${shown}${guess ? ` (did you mean '${guess}'?)` : ''}; ${list}`;
}
