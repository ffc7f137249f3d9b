import type { CallContext } from './call-context';

/** A use case: one public `execute`. Returns plain data, throws domain errors (src/domain/errors.ts). */
export interface UseCase<I = unknown, O = unknown> {
  execute(input: I, ctx?: CallContext): Promise<O> | O;
}
