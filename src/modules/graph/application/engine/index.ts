export * from './execution-types';
export * from './compiled-graph';
export * from './jsonata-expression';
export { CompiledJsonLogicRule, JsonLogicSyntaxError } from './json-logic-rule';
export { GraphRun, type GraphRunDeps } from './graph-run';
export { RecentRuns } from './recent-runs';
export { createAjvValidatorFactory, type ValidatorFactory, type ValueValidator } from './input-validator';
