import type { TaskRecord } from '../task-record';
import { topicOf } from './topic';

/** The review answer of a checkpoint when it asked for changes, else undefined. */
export function requestedChanges(task: TaskRecord, type: 'plan_review' | 'outline_review'): string | undefined {
  const response = task.history.find((entry) => entry.type === type)?.response;
  return response && 'approved' in response && response.approved === false ? response.modifications : undefined;
}

/** The planning answers given, as question/answer pairs. */
export function planningAnswers(task: TaskRecord): { question: string; answer: string }[] {
  const response = task.history.find((entry) => entry.type === 'planning_questions')?.response;
  return response && 'answers' in response ? response.answers : [];
}

/** The research plan: reflects planning answers, the strategy, and changes asked at plan review. */
export function researchPlan(task: TaskRecord): string[] {
  const { keywords } = topicOf(task.query);
  const subject = keywords.slice(0, 3).join(' ');
  const steps = [
    `Frame the question and define the scope for ${subject}`,
    `Search web and specialist datasets for recent evidence on ${subject}`,
    `Extract figures, claims and dates from the strongest sources`,
    `Cross-check conflicting claims and note uncertainty`,
    `Synthesise findings into a cited report`,
  ];
  const answers = planningAnswers(task);
  if (answers.length > 0) steps.splice(1, 0, `Apply the requester's scope: ${answers.map((pair) => pair.answer).join('; ')}`);
  if (task.config.researchStrategy) steps.splice(2, 0, `Follow the research strategy: ${clip(task.config.researchStrategy, 160)}`);
  const changes = requestedChanges(task, 'plan_review');
  if (changes) steps.push(`Plan change requested at review: ${changes}`);
  return steps;
}

/** The report outline: section titles with a line each; changes asked at outline review are included. */
export function reportOutline(task: TaskRecord): { section: string; description: string }[] {
  const { keywords } = topicOf(task.query);
  const subject = keywords.slice(0, 2).join(' ');
  const outline = [
    { section: 'Executive summary', description: 'The answer in a few sentences' },
    { section: 'Background', description: `Context and definitions for ${subject}` },
    { section: 'Key findings', description: 'Evidence-backed findings with citations' },
    { section: 'Analysis', description: 'What the findings mean, trade-offs and open questions' },
    { section: 'Outlook', description: 'Expected developments and signals to watch' },
  ];
  const changes = requestedChanges(task, 'outline_review');
  if (changes) outline.push({ section: 'Reviewer-requested changes', description: changes });
  return outline;
}

/** Shortens text to `max` characters on a word boundary. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max).replace(/\s+\S*$/, '')}...`;
}
