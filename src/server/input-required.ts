import { createHash } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { CallInput, InputKind, InputRequest } from '../kernel/call-input';
import { JsonRpcErrorCodes } from './json-rpc-codes';

/** How long a question's requestState stays valid: ten minutes for the person to answer. */
export const REQUEST_STATE_TTL_SECONDS = 600;

/** What a signed requestState holds: the question and the call it belongs to (signed, not secret: no secrets here). */
interface QuestionState {
  /** The tool, the caller and a digest of the arguments: the retry must be the same call. */
  tool: string;
  caller: string;
  args: string;
  key: string;
  kind: InputKind;
  subject: string;
}

/** The input requests' answers a retried call carries, read for one tool call. */
export interface InputSeam {
  input?: CallInput;
  /** The `input_required` result that asks `request` (its state signed). */
  ask(request: InputRequest): Promise<Record<string, unknown>>;
}

/** Why the SDK's codec refused a state, as the client reads it. */
const REFUSALS: Record<string, string> = {
  mac: 'its signature does not match: it was altered, or not made by this server',
  expired: `it expired (a question is valid for ${REQUEST_STATE_TTL_SECONDS / 60} minutes): call again without it to be asked again`,
  malformed: 'it is not a requestState this server made',
  bind: 'it was made for another call',
};

/**
 * `input_required` for one modern `tools/call`: which questions the client can answer (a confirmation needs the
 * `elicitation` capability it declared on the request), the answer a retry carries — only with a requestState this
 * server signed (HMAC-SHA256 with the store's key, the SDK's `createRequestStateCodec`; any instance of the store
 * verifies it) naming the same tool, caller, arguments and subject — and the result that asks.
 *
 * @throws ProtocolError -32602 when the retry's requestState is tampered with, expired or made for another call.
 */
export async function inputSeam(
  ctx: ServerContext,
  call: { tool: string; caller: string; args: unknown },
  codec: () => Promise<RequestStateCodec<QuestionState>>,
): Promise<InputSeam> {
  const caps = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as keyof typeof ctx.mcpReq.envelope] as { elicitation?: unknown } | undefined;
  const kinds: InputKind[] = caps?.elicitation !== undefined ? ['confirm'] : [];
  const args = createHash('sha256').update(JSON.stringify(call.args ?? {})).digest('base64url');
  const raw = ctx.mcpReq.requestState<unknown>();
  let state: QuestionState | undefined;
  if (typeof raw === 'string') {
    try {
      state = await (await codec()).verify(raw, ctx);
    } catch (e) {
      const reason = (e as Error).message;
      throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, `requestState refused: ${REFUSALS[reason] ?? REFUSALS.malformed}`, { reason: 'invalid_request_state', detail: reason });
    }
    if (state.tool !== call.tool || state.caller !== call.caller || state.args !== args) {
      throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, `requestState refused: ${REFUSALS.bind} (${state.tool}, not this ${call.tool} call)`, { reason: 'invalid_request_state', detail: 'bind' });
    }
  }
  const responses = ctx.mcpReq.inputResponses;
  const input: CallInput | undefined =
    kinds.length === 0 && !state
      ? undefined
      : {
          kinds,
          answer: (key, subject) => {
            if (!state || state.key !== key || state.subject !== subject) return undefined;
            const view = inputResponse(responses, key);
            if (view.kind !== 'elicit') return undefined;
            return { accepted: view.action === 'accept' && view.content?.confirm === true };
          },
        };
  return {
    ...(input ? { input } : {}),
    ask: async (request) => {
      const requestState = await (await codec()).mint({ tool: call.tool, caller: call.caller, args, key: request.key, kind: request.kind, subject: request.subject });
      return inputRequired({
        inputRequests: {
          [request.key]: inputRequired.elicit({
            message: request.question,
            requestedSchema: {
              type: 'object',
              properties: { confirm: { type: 'boolean', title: 'Confirm', description: 'true to go ahead, false to stop' } },
              required: ['confirm'],
            },
          }),
        },
        requestState,
      }) as unknown as Record<string, unknown>;
    },
  };
}

/** The requestState codec over a key read once from the store (the same key on every instance of it). */
export function requestStateCodec(key: () => Promise<Buffer>): () => Promise<RequestStateCodec<QuestionState>> {
  let codec: Promise<RequestStateCodec<QuestionState>> | undefined;
  return () =>
    (codec ??= key()
      .then((k) => createRequestStateCodec<QuestionState>({ key: new Uint8Array(k), ttlSeconds: REQUEST_STATE_TTL_SECONDS }))
      .catch((e) => {
        codec = undefined;
        throw e;
      }));
}
