import { ProtocolError } from '@modelcontextprotocol/server';
import type { InjectionToken } from 'tsyringe';
import { noopCallContext } from '../kernel/call-context';
import { LOCAL_IDENTITY, type Identity } from '../kernel/identity';
import { WorkgraphError } from '../kernel/errors';
import type { UseCase } from '../kernel/use-case';
import { callerIdentity, type AuthInfoLike } from './caller-identity';
import { JsonRpcErrorCodes } from './json-rpc-codes';

/** Runs a use case for a prompt or resource request, as the request's identity. */
export type ResourceCall = <O>(token: symbol, input: unknown, extra: { authInfo?: AuthInfoLike }) => Promise<O>;

/**
 * How prompts and resources call the modules: the use case resolved from the container and run with the caller's
 * reach, exactly as its tool would be; what the caller got wrong (unknown, invalid, unsafe) is invalid params.
 */
export function resourceCall(resolve: <T>(token: InjectionToken<T>) => T, caller: Identity | undefined): ResourceCall {
  return async <O>(token: symbol, input: unknown, extra: { authInfo?: AuthInfoLike }): Promise<O> => {
    try {
      const identity = callerIdentity(extra.authInfo, caller ?? LOCAL_IDENTITY);
      return await resolve<UseCase<unknown, O>>(token).execute(input, noopCallContext(undefined, identity));
    } catch (e) {
      if (e instanceof WorkgraphError && (e.code === 'not_found' || e.code === 'invalid_arguments' || e.code === 'invalid_workflow' || e.code === 'unsafe_path')) {
        throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, `${e.code}: ${e.message}`);
      }
      throw e;
    }
  };
}

/** The request's AuthInfo as the SDK's v2 hands it to a handler (`ctx.http.authInfo`). */
export function authOf(ctx: { http?: { authInfo?: unknown } }): { authInfo?: AuthInfoLike } {
  return { authInfo: ctx.http?.authInfo as AuthInfoLike | undefined };
}
