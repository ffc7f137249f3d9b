import type { Workflow } from '../types';

/**
 * The `metricsProfile` footer: what a current-format workflow asks the agent to report in `metrics_*` context keys.
 * As WorkRail places it: `coding` asks for the commit list on every step and the outcome figures on the last one;
 * `review`, `research`, `design` and `ticket` ask on the last step only; `none` (or no profile) asks nothing.
 * The last step is the last top-level step, or — when that is a loop — the last body step that is not the
 * loop-control decision (the agent is in decision mode there).
 */
export function metricsFooter(profile: Workflow['metricsProfile'], isLastStep: boolean): string | undefined {
  if (!profile || profile === 'none') return undefined;
  const outcome =
    '`metrics_outcome`: exactly one of "success", "partial", "abandoned", "error" (classify, do not describe)';
  if (profile === 'coding') {
    const shas =
      '## Metrics\nAfter each commit, put the full list of this session\'s commit SHAs in `context.metrics_commit_shas` (the whole list every time: a partial list loses the earlier ones).';
    if (!isLastStep) return shas;
    return `${shas}\nThis is the last step: also set ${outcome}, \`metrics_pr_numbers\` (integers), \`metrics_files_changed\`, \`metrics_lines_added\` and \`metrics_lines_removed\` (integers).`;
  }
  if (!isLastStep) return undefined;
  if (profile === 'review') return `## Metrics\nThis is the last step: set \`metrics_pr_numbers\` (the PR numbers reviewed, integers) and ${outcome} in the context.`;
  return `## Metrics\nThis is the last step: set ${outcome} in the context.`;
}
