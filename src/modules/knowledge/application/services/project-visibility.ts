import type { CallContext } from '../../../../kernel/call-context';

/**
 * Which knowledge projects a caller may search. Every project of the store for now: the caller's identity (who may
 * see which projects) decides once the call context carries one.
 */
export function mayReadProject(_ctx: CallContext | undefined, _project: string): boolean {
  return true;
}
