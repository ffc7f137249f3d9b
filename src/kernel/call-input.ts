/**
 * Asking the caller for input in the middle of a call, without a request to the client: the call ends with a question
 * (MCP 2026-07-28 `input_required`, a signed `requestState` naming what was asked), and the client calls again with
 * the answer. A use case sees only this port: it asks by throwing {@link InputRequest} and reads the answer of a
 * retried call with {@link CallInput.answer}. Pure: no I/O, no protocol types.
 */

/** What a question asks for. */
export type InputKind =
  /** A yes/no confirmation by the person (or the coordinating agent) behind the client. */
  | 'confirm';

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
}

/**
 * Thrown by a use case that needs an answer to go on: the server ends the call with the question and a signed state
 * naming `subject` (what is being confirmed: the ids, the step), and the retried call's `ctx.input.answer(key,
 * subject)` gives the answer. Only thrown when `ctx.input` offers `kind`.
 */
export class InputRequest extends Error {
  constructor(
    readonly key: string,
    readonly kind: InputKind,
    /** The question as the person reads it. */
    readonly question: string,
    /** What the answer is about, as the use case computes it again on the retry. */
    readonly subject: string,
  ) {
    super(question);
    this.name = 'InputRequest';
  }
}

/** Whether `ctx.input` can ask a question of `kind`. */
export function canAsk(input: CallInput | undefined, kind: InputKind): input is CallInput {
  return input !== undefined && input.kinds.includes(kind);
}
