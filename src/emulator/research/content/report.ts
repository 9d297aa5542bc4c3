import { totalSteps } from '../timing';
import type { TaskRecord } from '../task-record';
import type { GeneratedSource } from './sources';
import { findingsOf, summaryOf } from './findings';
import { clip, planningAnswers, requestedChanges, researchPlan } from './plan';
import { topicOf } from './topic';

/** The Markdown report of a task over its `sources`: every checkpoint answer and instruction shows in it. */
export function markdownReport(task: TaskRecord, sources: readonly GeneratedSource[]): string {
  const topic = topicOf(task.query);
  const findings = findingsOf(task, sources);
  const lines: string[] = [
    `# ${topic.title}`,
    '',
    `*DeepResearch report, ${task.config.mode} mode, ${sources.length} sources.*`,
    '',
    '## Executive summary',
    '',
    summaryOf(task, findings),
    '',
  ];
  const answers = planningAnswers(task);
  if (answers.length > 0) {
    lines.push('## Scope agreed with the requester', '', ...answers.map((pair) => `- **${pair.question}** ${pair.answer}`), '');
  }
  lines.push('## Research plan', '', ...researchPlan(task).map((step, index) => `${index + 1}. ${step}`), '');
  lines.push('## Key findings', '');
  for (const [index, finding] of findings.entries()) lines.push(`### ${index + 1}. ${finding.heading}`, '', finding.text, '');
  lines.push(
    '## Analysis',
    '',
    `Taken together, the findings on ${topic.keywords.slice(0, 2).join(' and ')} suggest a field in transition. ` +
      'Where sources disagree, primary data was preferred over commentary, and the more recent figure over the older one.',
    '',
  );
  if (task.instructions.length > 0) {
    lines.push('## Follow-up instructions', '');
    for (const instruction of task.instructions)
      lines.push(`- "${clip(instruction.text, 300)}" (received at step ${instruction.step}): addressed in the findings and analysis above.`);
    lines.push('');
  }
  const outlineChanges = requestedChanges(task, 'outline_review');
  if (outlineChanges) lines.push('## Reviewer-requested changes', '', `The outline was revised at review: ${outlineChanges}`, '');
  lines.push(
    '## Outlook',
    '',
    `Watch for new data releases and policy decisions affecting ${topic.keywords[0] ?? 'the topic'} over the next 12 to 24 months.`,
    '',
  );
  lines.push(...methodology(task), '');
  lines.push(
    '## Sources',
    '',
    ...sources.map((source, index) => `${index + 1}. [${source.title}](${source.url}) (${source.domain}, ${source.publication_date})`),
  );
  return `${lines.join('\n')}\n`;
}

function methodology(task: TaskRecord): string[] {
  const lines = ['## Methodology', '', `- ${totalSteps(task.config.mode)} research steps in ${task.config.mode} mode.`];
  if (task.config.researchStrategy) lines.push(`- Research strategy followed: ${clip(task.config.researchStrategy, 200)}`);
  if (task.config.reportFormat) lines.push(`- Report format requested: ${clip(task.config.reportFormat, 200)}`);
  const review = task.history.find((entry) => entry.type === 'source_review')?.response;
  if (review && 'excluded_domains' in review) {
    if (review.excluded_domains.length > 0) lines.push(`- Excluded at source review: ${review.excluded_domains.join(', ')}.`);
    if (review.included_domains.length > 0) lines.push(`- Prioritised at source review: ${review.included_domains.join(', ')}.`);
  }
  return lines;
}

/** The first sections of a report, for a task that stopped after `fraction` of its work. */
export function partialMarkdown(full: string, fraction: number, stepNote: string): string {
  const sections = full.split(/\n(?=## )/);
  const keep = Math.max(1, Math.ceil(sections.length * Math.min(1, fraction)));
  return `${sections.slice(0, keep).join('\n').trimEnd()}\n\n*Partial report: ${stepNote}.*\n`;
}
