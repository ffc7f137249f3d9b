/**
 * Fields of WorkRail's format that workgraph refuses rather than accept and ignore (docs/writing-workflows.md "What
 * each field does"): the rule is that a field the schema accepts either acts or is refused with a clear error. The
 * schema leaves them out; the workflow checker words the refusal with the reason here instead of "not allowed".
 */
export const REFUSED_FIELDS: Readonly<Record<string, string>> = {
  functionCalls:
    'functionCalls is not supported: nothing would call the functions; name them in functionReferences to show their definitions in the prompt',
  extensionPoints:
    'extensionPoints is not supported: no other workflow can plug into one here; use templateCall routines to share steps',
};

/** The refusal message for a property name the schema did not allow, when it is one of the refused fields. */
export function refusalOf(property: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(REFUSED_FIELDS, property) ? REFUSED_FIELDS[property] : undefined;
}
