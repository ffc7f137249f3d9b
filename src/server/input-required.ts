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
import type { Sampler } from '../kernel/sampler';
import { JsonRpcErrorCodes } from './json-rpc-codes';

/** How long a question's requestState stays valid: ten minutes for the person to answer. */
export const REQUEST_STATE_TTL_SECONDS = 600;

/** What a signed requestState holds: the question and the call it belongs to (signed, not secret: no secrets here). */
interface QuestionState {
  /** The tool, the caller and a digest of the arguments: the retry must be the same call. */
  tool: string;
  caller: string;
  args: string;
  subject: string;
  /** The round's questions: a sampling one with the digest of its prompt (its answer serves that prompt only). */
  questions: Array<{ key: string; kind: InputKind; prompt?: string }>;
}

/** The input requests' answers a retried call carries, read for one tool call. */
export interface InputSeam {
  input?: CallInput;
  /** On a retry: the sampled completions it carries, answering the prompts they were asked for. */
  sampler?: Sampler;
  /** The `input_required` result that asks `request` (its state signed). */
  ask(request: InputRequest): Promise<Record<string, unknown>>;
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url');
const promptDigest = (systemPrompt: string | undefined, prompt: string) => digest(`${systemPrompt ?? ''}\0${prompt}`);

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
  const caps = ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as keyof typeof ctx.mcpReq.envelope] as { elicitation?: unknown; sampling?: unknown } | undefined;
  const kinds: InputKind[] = [...(caps?.elicitation !== undefined ? (['confirm'] as const) : []), ...(caps?.sampling !== undefined ? (['sample'] as const) : [])];
  // The arguments' digest only when a state is read or minted: a plain call pays nothing for it.
  let argsDigest: string | undefined;
  const args = () => (argsDigest ??= digest(JSON.stringify(call.args ?? {})));
  const raw = ctx.mcpReq.requestState<unknown>();
  let state: QuestionState | undefined;
  if (typeof raw === 'string') {
    try {
      state = await (await codec()).verify(raw, ctx);
    } catch (e) {
      const reason = (e as Error).message;
      throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, `requestState refused: ${REFUSALS[reason] ?? REFUSALS.malformed}`, { reason: 'invalid_request_state', detail: reason });
    }
    if (state.tool !== call.tool || state.caller !== call.caller || state.args !== args()) {
      throw new ProtocolError(JsonRpcErrorCodes.InvalidParams, `requestState refused: ${REFUSALS.bind} (${state.tool}, not this ${call.tool} call)`, { reason: 'invalid_request_state', detail: 'bind' });
    }
  }
  const responses = ctx.mcpReq.inputResponses;
  const input: CallInput | undefined =
    kinds.length === 0 && !state
      ? undefined
      : {
          kinds,
          retried: state !== undefined,
          answer: (key, subject) => {
            if (!state || state.subject !== subject || !state.questions.some((q) => q.key === key && q.kind === 'confirm')) return undefined;
            const view = inputResponse(responses, key);
            if (view.kind !== 'elicit') return undefined;
            return { accepted: view.action === 'accept' && view.content?.confirm === true };
          },
        };
  const sampled = new Map<string, string>();
  for (const q of state?.questions ?? []) {
    const view = q.kind === 'sample' && q.prompt ? inputResponse(responses, q.key) : undefined;
    const content = view?.kind === 'sampling' ? view.result.content : undefined;
    const first = Array.isArray(content) ? content[0] : content;
    if (first && first.type === 'text' && q.prompt) sampled.set(q.prompt, first.text);
  }
  const sampler: Sampler | undefined = state?.questions.some((q) => q.kind === 'sample')
    ? {
        complete: async ({ systemPrompt, prompt }) => {
          const text = sampled.get(promptDigest(systemPrompt, prompt));
          if (text === undefined) throw new Error('the client sent no completion for this prompt');
          return text;
        },
      }
    : undefined;
  return {
    ...(input ? { input } : {}),
    ...(sampler ? { sampler } : {}),
    ask: async (request) => {
      const questions = request.questions.map((q) => ({ key: q.key, kind: q.kind, ...(q.kind === 'sample' ? { prompt: promptDigest(q.systemPrompt, q.prompt) } : {}) }));
      const requestState = await (await codec()).mint({ tool: call.tool, caller: call.caller, args: args(), subject: request.subject, questions });
      const inputRequests = Object.fromEntries(
        request.questions.map((q) => [
          q.key,
          q.kind === 'confirm'
            ? inputRequired.elicit({
                message: q.question,
                requestedSchema: {
                  type: 'object',
                  properties: { confirm: { type: 'boolean', title: 'Confirm', description: 'true to go ahead, false to stop' } },
                  required: ['confirm'],
                },
              })
            : inputRequired.createMessage({
                messages: [{ role: 'user', content: { type: 'text', text: q.prompt } }],
                ...(q.systemPrompt !== undefined ? { systemPrompt: q.systemPrompt } : {}),
                maxTokens: q.maxTokens,
              }),
        ]),
      );
      return inputRequired({ inputRequests, requestState }) as unknown as Record<string, unknown>;
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
