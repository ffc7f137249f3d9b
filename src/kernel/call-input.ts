/**
 * Asking the caller for input in the middle of a call, without a request to the client: the call ends with a question
 * (MCP 2026-07-28 `input_required`, a signed `requestState` naming what was asked), and the client calls again with
 * the answer. A use case sees only this port: it asks by throwing {@link InputRequest} and reads the answer of a
 * retried call with {@link CallInput.answer}. Pure: no I/O, no protocol types.
 */

/** What a question asks for. */
export type InputKind =
  /** A yes/no confirmation by the person (or the coordinating agent) behind the client. */
  | 'confirm'
  /** A completion by the client's LLM (sampling): on the retry, the call's `ctx.sampler` answers with it. */
  | 'sample';

/** One question of a round. */
export type InputQuestion =
  | { key: string; kind: 'confirm'; question: string }
  | { key: string; kind: 'sample'; systemPrompt?: string; prompt: string; maxTokens: number };

/** The caller's answer to one question. */
export interface InputAnswer {
  /** True when the person accepted (and, for a confirmation, said yes). */
  readonly accepted: boolean;
}

/** What a call may ask its caller, and what it was answered. */
export interface CallInput {
  /** The kinds of question this caller can answer (from the capabilities its client declared). */
  readonly kinds: readonly InputKind[];
  /**
   * The answer to question `key` about `subject` when this call retries one the server asked (its signed state
   * verified and naming the same subject); undefined when it was not asked yet, or asked about something else —
   * then ask (again).
   */
  answer(key: string, subject: string): InputAnswer | undefined;
  /** True when this call retries a round the server asked (its state verified): do not ask that round again. */
  readonly retried: boolean;
}

/**
 * Thrown by a use case that needs answers to go on: the server ends the call with the questions (one round) and a
 * signed state naming `subject` (what is being decided: the ids, the step), and the retried call's
 * `ctx.input.answer(key, subject)` gives a confirmation's answer, its `ctx.sampler` the sampled completions (matched
 * by their prompt). Only thrown for kinds `ctx.input` offers.
 */
export class InputRequest extends Error {
  constructor(
    readonly questions: readonly InputQuestion[],
    /** What the answers are about, as the use case computes it again on the retry. */
    readonly subject: string,
  ) {
    super(questions.map((q) => (q.kind === 'confirm' ? q.question : `a completion for ${q.key}`)).join('; '));
    this.name = 'InputRequest';
  }

  /** One confirmation. */
  static confirm(key: string, question: string, subject: string): InputRequest {
    return new InputRequest([{ key, kind: 'confirm', question }], subject);
  }
}

/** Whether `ctx.input` can ask a question of `kind`. */
export function canAsk(input: CallInput | undefined, kind: InputKind): input is CallInput {
  return input !== undefined && input.kinds.includes(kind);
}
