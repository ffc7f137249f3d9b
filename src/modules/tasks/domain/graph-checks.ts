import { CycleDetectedError, InvalidArgumentsError } from '../../../kernel/errors';
import type { TaskNodeDefinition } from './task-graph';

/**
 * Checks a graph definition before it is stored: at least one node, unique ids, every dependency names a node of
 * the graph (and not the node itself — that is a cycle), no cycles.
 * @throws InvalidArgumentsError naming the field (`nodes`, `nodes[3].id`, `nodes[3].depends_on`);
 *   CycleDetectedError naming the cycle path (`a -> b -> a`).
 */
export function checkGraphDefinition(nodes: readonly TaskNodeDefinition[]): void {
  if (!Array.isArray(nodes) || nodes.length === 0) {
    throw new InvalidArgumentsError('nodes: a task graph needs at least one node', 'nodes');
  }
  const seen = new Map<string, number>();
  nodes.forEach((n, i) => {
    const first = seen.get(n.id);
    if (first !== undefined) {
      throw new InvalidArgumentsError(`nodes[${i}].id: duplicate node id '${n.id}' (also nodes[${first}])`, `nodes[${i}].id`);
    }
    seen.set(n.id, i);
  });
  nodes.forEach((n, i) => {
    for (const dep of n.depends_on ?? []) {
      if (!seen.has(dep)) {
        throw new InvalidArgumentsError(
          `nodes[${i}].depends_on: node '${n.id}' depends on unknown node '${dep}'`,
          `nodes[${i}].depends_on`,
        );
      }
    }
  });
  const cycle = findCycle(nodes);
  if (cycle) throw new CycleDetectedError(cycle);
}

/**
 * The first dependency cycle found, as a path whose first id is repeated at the end (`['a', 'b', 'a']`), or
 * undefined. Iterative depth-first search (no recursion limit on deep chains); edges point from a node to what it
 * depends on, and the path is reported in that direction. Unknown dependencies are ignored here.
 */
export function findCycle(nodes: readonly Pick<TaskNodeDefinition, 'id' | 'depends_on'>[]): string[] | undefined {
  const deps = new Map<string, readonly string[]>();
  for (const n of nodes) deps.set(n.id, n.depends_on ?? []);
  const WHITE = 0;
  const GREY = 1;
  const BLACK = 2;
  const color = new Map<string, number>();
  for (const start of deps.keys()) {
    if ((color.get(start) ?? WHITE) !== WHITE) continue;
    // Stack of [node, index of the next dependency to visit]; `path` mirrors the grey nodes in order.
    const stack: [string, number][] = [[start, 0]];
    const path: string[] = [start];
    color.set(start, GREY);
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [id, next] = top;
      const list = deps.get(id) ?? [];
      if (next >= list.length) {
        color.set(id, BLACK);
        stack.pop();
        path.pop();
        continue;
      }
      top[1] = next + 1;
      const dep = list[next];
      if (!deps.has(dep)) continue;
      const c = color.get(dep) ?? WHITE;
      if (c === GREY) return [...path.slice(path.indexOf(dep)), dep];
      if (c === WHITE) {
        color.set(dep, GREY);
        stack.push([dep, 0]);
        path.push(dep);
      }
    }
  }
  return undefined;
}
