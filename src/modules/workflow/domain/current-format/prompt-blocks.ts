import { STANDARD_FEATURES, STANDARD_REFS, type FeatureDefinition, type PromptValue } from './standard-texts';

/** `promptBlocks`: the structured prompt of a current-format step. */
export interface PromptBlocks {
  goal?: PromptValue;
  constraints?: PromptValue[];
  procedure?: PromptValue[];
  outputRequired?: Record<string, string>;
  verify?: PromptValue[];
}

/** A problem found while rendering: a JSON pointer relative to the promptBlocks object, and what is wrong. */
export interface RenderProblem {
  pointer: string;
  message: string;
}

/**
 * Renders promptBlocks as markdown, one heading per block in a fixed order — `## Goal`, `## Constraints` (bullets),
 * `## Procedure` (numbered), `## Output Required` (`- **key**: text`), `## Verify` (bullets) — with the features'
 * items appended to constraints, procedure and verify, and every `{kind: "ref"}` replaced by its standard text.
 * Unknown refs are reported (every one, with its pointer); the text is still rendered with the id in their place.
 */
export function renderPromptBlocks(blocks: PromptBlocks, features: readonly FeatureDefinition[]): { text: string; problems: RenderProblem[] } {
  const problems: RenderProblem[] = [];
  const value = (v: unknown, pointer: string): string => renderValue(v, pointer, problems);
  const list = (items: unknown, pointer: string, extra: (f: FeatureDefinition) => PromptValue[] | undefined): string[] => {
    const own = Array.isArray(items) ? items.map((item, i) => value(item, `${pointer}/${i}`)) : [];
    const added = features.flatMap((f) => (extra(f) ?? []).map((item) => value(item, `${pointer}/(feature)`)));
    return [...own, ...added];
  };
  const sections: string[] = [];
  if (blocks.goal !== undefined) sections.push(`## Goal\n${value(blocks.goal, '/goal')}`);
  const constraints = list(blocks.constraints, '/constraints', (f) => f.constraints);
  if (constraints.length > 0) sections.push(`## Constraints\n${constraints.map((c) => `- ${c}`).join('\n')}`);
  const procedure = list(blocks.procedure, '/procedure', (f) => f.procedure);
  if (procedure.length > 0) sections.push(`## Procedure\n${procedure.map((p, i) => `${i + 1}. ${p}`).join('\n')}`);
  const output = blocks.outputRequired && typeof blocks.outputRequired === 'object' ? Object.entries(blocks.outputRequired) : [];
  if (output.length > 0) sections.push(`## Output Required\n${output.map(([k, v]) => `- **${k}**: ${String(v)}`).join('\n')}`);
  const verify = list(blocks.verify, '/verify', (f) => f.verify);
  if (verify.length > 0) sections.push(`## Verify\n${verify.map((v) => `- ${v}`).join('\n')}`);
  if (sections.length === 0) problems.push({ pointer: '', message: 'promptBlocks has no content; expected at least one of goal, constraints, procedure, outputRequired, verify' });
  return { text: sections.join('\n\n'), problems };
}

function renderValue(v: unknown, pointer: string, problems: RenderProblem[]): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map((part, i) => renderValue(part, `${pointer}/${i}`, problems)).join('');
  if (v && typeof v === 'object') {
    const part = v as { kind?: unknown; text?: unknown; refId?: unknown };
    if (part.kind === 'text' && typeof part.text === 'string') return part.text;
    if (part.kind === 'ref' && typeof part.refId === 'string') {
      const text = STANDARD_REFS[part.refId];
      if (text !== undefined) return text;
      problems.push({ pointer: `${pointer}/refId`, message: `unknown ref '${part.refId}'; known refs: ${Object.keys(STANDARD_REFS).join(', ')}` });
      return `[${part.refId}]`;
    }
  }
  problems.push({ pointer, message: 'expected text, a {kind: "ref", refId} item or a list of them' });
  return '';
}

/** The features named by a workflow, with a problem for each unknown id. */
export function resolveFeatures(ids: unknown): { features: FeatureDefinition[]; problems: RenderProblem[] } {
  const features: FeatureDefinition[] = [];
  const problems: RenderProblem[] = [];
  if (!Array.isArray(ids)) return { features, problems };
  ids.forEach((entry, i) => {
    const id = typeof entry === 'string' ? entry : (entry as { id?: unknown })?.id;
    const feature = typeof id === 'string' ? STANDARD_FEATURES[id] : undefined;
    if (feature) features.push(feature);
    else problems.push({ pointer: `/features/${i}`, message: `unknown feature '${String(id)}'; known features: ${Object.keys(STANDARD_FEATURES).join(', ')}` });
  });
  return { features, problems };
}
