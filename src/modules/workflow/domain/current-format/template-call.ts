import type { RenderProblem } from './prompt-blocks';

/** `wr.templates.routine.<name>` → the routine workflow id `wr.routine-<name>`; undefined for other template ids. */
export function routineIdOf(templateId: string): string | undefined {
  const prefix = 'wr.templates.routine.';
  return templateId.startsWith(prefix) && templateId.length > prefix.length ? `wr.routine-${templateId.slice(prefix.length)}` : undefined;
}

/** `{name}` (single braces, not part of `{{name}}`): a templateCall argument placeholder. */
const ARG = /(?<!\{)\{([A-Za-z_][\w-]*)\}(?!\})/g;

/**
 * Fills `{arg}` placeholders from templateCall.args (strings, numbers and booleans). A placeholder with no argument
 * is a problem naming it; so is an argument that is not a primitive.
 */
export function fillArgs(text: string, args: Record<string, unknown>, pointer: string, routineId: string, problems: RenderProblem[]): string {
  return text.replace(ARG, (whole, name: string) => {
    if (!Object.prototype.hasOwnProperty.call(args, name)) {
      problems.push({ pointer, message: `routine '${routineId}' needs argument '${name}', which templateCall.args does not give` });
      return whole;
    }
    const value = args[name];
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      problems.push({ pointer: `${pointer}`, message: `templateCall argument '${name}' must be a string, number or boolean` });
      return whole;
    }
    return String(value);
  });
}
