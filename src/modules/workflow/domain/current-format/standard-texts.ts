/**
 * The standard texts behind current-format `{kind: "ref", refId}` prompt items and `features` ids. workgraph's own
 * wording, written with the intent of the WorkRail ids they answer to. An id not listed here is a load error naming it.
 */

/** A prompt value: plain text, or parts (text and refs) joined into one item. */
export type PromptPart = string | { kind: 'text'; text: string } | { kind: 'ref'; refId: string };
export type PromptValue = string | PromptPart[] | { kind: 'ref'; refId: string };

export const STANDARD_REFS: Readonly<Record<string, string>> = {
  'wr.refs.memory_usage':
    'If a project memory is available, look there first for what earlier sessions learned about this area, and keep what you find apart from what you verified yourself.',
  'wr.refs.memory_store':
    'Store lasting findings (decisions, pitfalls, facts about the code) in the project memory when one is available, each with where it came from.',
  'wr.refs.memory_query':
    'Query the project memory for earlier decisions and known pitfalls before you redo work; treat what it returns as leads to check, not as truth.',
  'wr.refs.notes_first_durability':
    'Write what matters into your notes for this step as you go — decisions, evidence, open questions — so the work survives a lost session; a file on disk is a copy, the notes are the record.',
  'wr.refs.synthesis_under_disagreement':
    'When sources or helpers disagree, do not average them: name each position, the evidence behind it, and decide yourself which holds and why, saying what would change your mind.',
  'wr.refs.parallelize_cognition_serialize_synthesis':
    'Spread independent thinking across helpers in parallel if you can, but bring the results together yourself, one at a time: the decision and the final text are yours.',
  'wr.refs.adversarial_challenge_rules':
    'Challenge the leading option as an opponent would: find the strongest case against it, the cheapest evidence that would break it, and say plainly whether it survived.',
};

/** A feature: items added to the constraints, procedure and verify blocks of every promptBlocks step. */
export interface FeatureDefinition {
  constraints?: PromptValue[];
  procedure?: PromptValue[];
  verify?: PromptValue[];
}

export const STANDARD_FEATURES: Readonly<Record<string, FeatureDefinition>> = {
  'wr.features.memory_context': {
    constraints: [[{ kind: 'ref', refId: 'wr.refs.memory_usage' }]],
  },
  'wr.features.capabilities': {
    constraints: [
      'Do not take an optional capability (helpers, web access, other tools) for granted because the workflow mentions it.',
      'Before a path depends on such a capability, check it really works here: a quick probe or a real attempt.',
      'If it is missing, say so and take the path that works without it; never act as if it were there.',
    ],
    procedure: [
      'Decide whether an optional capability would change the quality of this step enough to be worth using.',
      'When you use one, record what showed it was available; when you skip it, record why doing it yourself is enough.',
    ],
    verify: [
      'Every capability-dependent path rests on an observed probe or attempt.',
      'Any missing or skipped capability, and what that limits, is written down.',
      'You still made the final judgment and the synthesis yourself.',
    ],
  },
  'wr.features.subagent_guidance': {
    constraints: [
      'Helpers (subagents) give independent perspectives; you keep the strategy, the decisions, the synthesis and the final output.',
      'Give helpers roles by focus, not by persona names, and never hand one of them the final say.',
      [{ kind: 'ref', refId: 'wr.refs.parallelize_cognition_serialize_synthesis' }],
    ],
    procedure: [
      'Give each helper one focus that does not overlap the others, and the shared facts or context as its ground truth.',
      'Read every helper result yourself and merge them into your own conclusion instead of adopting one verbatim.',
    ],
    verify: [
      'The final findings are your synthesis, not a copied helper answer.',
      'No helper decided the canonical result on its own.',
    ],
  },
};
