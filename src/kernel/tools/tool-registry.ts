import { InvalidGraphError } from '../errors';
import type { ToolDefinition } from './tool-definition';

/** MCP tool name rule (SEP-986): 1–64 of letters, digits, `_`, `-`, `.`. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_.-]{1,64}$/;

interface Entry {
  def: ToolDefinition;
  /** Where the tool was declared: `builtin` or a graph file path. Named in clash errors. */
  origin: string;
}

/**
 * Every tool the server offers, each declared once. Built-in tools are added at start; graph tools are added and
 * replaced per graph file at run time (listeners are told, so the server can send `notifications/tools/list_changed`).
 */
export class ToolRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<() => void>();

  /**
   * Adds tools declared in `origin`.
   * @throws InvalidGraphError when a name is malformed or taken by another origin (naming both).
   */
  register(defs: readonly ToolDefinition[], origin = 'builtin'): void {
    this.replaceOrigin(origin, defs);
  }

  /**
   * Replaces every tool of `origin` with `defs` atomically: either all are checked and swapped in, or nothing
   * changes. Listeners are told when the set changed.
   */
  replaceOrigin(origin: string, defs: readonly ToolDefinition[]): void {
    const seen = new Set<string>();
    for (const def of defs) {
      if (!TOOL_NAME_PATTERN.test(def.name)) {
        throw new InvalidGraphError(`tool name '${def.name}' in ${origin} must match ${TOOL_NAME_PATTERN.source}`, { tool: def.name });
      }
      if (seen.has(def.name)) throw new InvalidGraphError(`tool '${def.name}' is declared twice in ${origin}`, { tool: def.name });
      seen.add(def.name);
      const existing = this.entries.get(def.name);
      if (existing && existing.origin !== origin) {
        throw new InvalidGraphError(`tool '${def.name}' in ${origin} clashes with the tool of the same name in ${existing.origin}`, {
          tool: def.name,
          file: origin,
        });
      }
    }
    const before = this.names();
    for (const [name, entry] of this.entries) if (entry.origin === origin) this.entries.delete(name);
    for (const def of defs) this.entries.set(def.name, { def, origin });
    if (before !== this.names() || defs.length > 0) this.emit();
  }

  /** Removes every tool declared in `origin`. */
  removeOrigin(origin: string): void {
    let changed = false;
    for (const [name, entry] of this.entries) {
      if (entry.origin === origin) {
        this.entries.delete(name);
        changed = true;
      }
    }
    if (changed) this.emit();
  }

  get(name: string): ToolDefinition | undefined {
    return this.entries.get(name)?.def;
  }

  originOf(name: string): string | undefined {
    return this.entries.get(name)?.origin;
  }

  list(): ToolDefinition[] {
    return [...this.entries.values()].map((e) => e.def);
  }

  /** Names taken so far (for graph loaders that must refuse clashes before registering). */
  takenNames(): Set<string> {
    return new Set(this.entries.keys());
  }

  /** Calls `listener` whenever the set of tools changes. Returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private names(): string {
    return [...this.entries.keys()].sort().join('\n');
  }

  private emit(): void {
    for (const l of this.listeners) l();
  }
}
