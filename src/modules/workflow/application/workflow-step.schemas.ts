/**
 * The workflow step as the tools answer it, declared once. Three answers hand out a step — workflow_next, the
 * session tools (workflow_start, workflow_continue, workflow_resume) and workflow_get's preview — and one builder
 * makes the object (`stepAnswer` in services/next-step-engine.ts; the sessions answer through the same engine entry
 * point). Their schemas all start from `stepCore` here; each answer extends it with what only it says, so a field's
 * type is written once and the answers cannot drift apart. tests/unit/spec/entity-schemas.test.ts holds
 * spec/workflow.schema.json's step to these declarations.
 *
 * The wire is what it was before this file existed (tools/list is compared with a snapshot, spec/mcp-api.md is
 * generated): overriding a property in a spread keeps its place, so key order is unchanged too.
 */

/** The fields every answered step carries: what the agent acts on, and where the step sits. */
export const stepCore = {
  type: 'object',
  required: ['id', 'title', 'completionId'],
  properties: {
    id: { type: 'string' },
    title: { type: 'string' },
    completionId: { type: 'string' },
    loop: { type: 'object', properties: { id: { type: 'string' }, iteration: { type: 'integer' }, item: {} } },
    askForFiles: { type: 'boolean' },
    requireConfirmation: { type: 'boolean' },
    hasValidation: { type: 'boolean' },
  },
} as const;

const core = stepCore.properties;

/** A verification step as handed out: its command and whether the server runs it (else the agent does, unverified). */
export const stepVerification = {
  type: 'object',
  required: ['command', 'runsOn'],
  description: 'A verification step: the command proving the previous step, run by the server when you complete this step (runsOn "server") or by you (runsOn "agent", recorded unverified; reason says why).',
  properties: {
    command: { type: 'string' },
    runsOn: { enum: ['server', 'agent'] },
    reason: { type: 'string' },
    timeoutMs: { type: 'integer' },
  },
} as const;

/** One verification attempt as answers carry it (the verification_run event's fields). */
export const verificationOutcome = {
  type: 'object',
  required: ['command', 'ranBy', 'exitCode', 'signal', 'timedOut', 'cancelled', 'durationMs', 'stdoutTail', 'stderrTail', 'truncated', 'verified'],
  description: 'The verification of the step just completed: who ran the command, how it ended, the output tails; verified only when the server ran it and it exited 0.',
  properties: {
    command: { type: 'string' },
    ranBy: { enum: ['server', 'agent'] },
    reason: { type: 'string' },
    cwd: { type: 'string' },
    exitCode: { type: ['integer', 'null'] },
    signal: { type: ['string', 'null'] },
    timedOut: { type: 'boolean' },
    cancelled: { type: 'boolean' },
    durationMs: { type: 'integer' },
    stdoutTail: { type: 'string' },
    stderrTail: { type: 'string' },
    truncated: { type: 'boolean' },
    verified: { type: 'boolean' },
    timeoutMs: { type: 'integer' },
  },
} as const;

/** The stateless answers say what to do with the completionId (sessions keep it for the agent). */
const completionId = { ...core.completionId, description: 'Append exactly this string to completedSteps when the step is done.' } as const;

/**
 * A step as workflow_next returns it: the core fields plus the current format's resolved extras. Its text is in
 * `guidance.prompt` only, so an answer carries it once.
 */
export const returnedStep = {
  ...stepCore,
  properties: {
    ...core,
    completionId,
    hasValidation: { ...core.hasValidation, description: 'Check your output with workflow_validate before moving on.' },
    confirmation: {
      type: 'object',
      description: 'Current format: stop before going on — who confirms (user, or a coordinating agent) and why.',
      properties: { by: { enum: ['user', 'coordinator'] }, reason: { type: 'string' } },
    },
    outputContract: {
      type: 'object',
      description: 'Current format: the artifact to send in output.artifacts, with a valid example and where its schema is.',
      properties: { contractRef: { type: 'string' }, required: { type: 'boolean' }, kind: { type: 'string' }, example: { type: 'object' }, schema: { type: 'string' } },
    },
    assessments: {
      type: 'array',
      description: 'Current format: assessments to send (wr.assessment artifacts), with their dimensions, allowed levels and an example.',
      items: { type: 'object' },
    },
    delegations: {
      type: 'array',
      items: { type: 'object' },
      description: 'Current format, parallel steps: the delegations that apply now (goal; allowedTools is a hint, nothing restricts them); a synthesis step: each one\'s goal and result slot.',
    },
    fragments: { type: 'array', items: { type: 'string' } },
    verificationCommand: stepVerification,
  },
} as const;

/**
 * The step the session tools answer (or null when the run is complete): the core fields — the engine hands out the
 * same object as workflow_next; the current-format extras are in it too, the schema leaves them undeclared.
 */
export const sessionStep = {
  anyOf: [
    { ...stepCore, properties: { ...core, hasValidation: { ...core.hasValidation, description: 'The server checks the output of this step against its criteria.' } } },
    { type: 'null' },
  ],
  description: 'The step to do now (the same shape as workflow_next; its text is in guidance.prompt), or null when complete.',
} as const;

/** A step as workflow_get's preview shows it: the core fields with its text (prompt, role, guidance) in place. */
export const previewStep = {
  type: 'object',
  required: ['id', 'title', 'prompt', 'completionId'],
  properties: {
    id: core.id,
    title: core.title,
    prompt: { type: 'string', description: 'The prompt with {{var}} placeholders filled from the context.' },
    agentRole: { type: 'string' },
    guidance: { type: 'array', items: { type: 'string' } },
    askForFiles: core.askForFiles,
    requireConfirmation: core.requireConfirmation,
    completionId,
    loop: core.loop,
  },
} as const;

/** The text of a step in an answer: one prompt (the session tools and workflow_next). */
export const stepGuidance = { type: 'object', required: ['prompt'], properties: { prompt: { type: 'string' } } } as const;

/** Why an output for the step falls short: the fields workflow_next and the session tools share. */
export const stepBlocker = {
  type: 'object',
  required: ['code', 'pointer', 'message'],
  properties: {
    code: { type: 'string' },
    pointer: { type: 'string' },
    message: { type: 'string' },
    expected: {},
  },
} as const;
