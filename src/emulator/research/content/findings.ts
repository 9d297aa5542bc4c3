import type { ResearchMode } from '../../../api/schemas/common';
import type { TaskRecord } from '../task-record';
import type { GeneratedSource } from './sources';
import { seededRandom } from './rng';
import { topicOf } from './topic';

/** One finding of a report with the indexes (1-based) of the sources it cites. */
export interface Finding {
  heading: string;
  text: string;
  citations: number[];
}

const FINDING_COUNTS: Record<ResearchMode, number> = { fast: 3, standard: 5, heavy: 7, max: 10 };
const HEADINGS = [
  'Adoption is accelerating',
  'Costs are falling unevenly',
  'Regulation shapes the pace',
  'Incumbents face new entrants',
  'Evidence quality varies',
  'Regional differences are large',
  'Supply constraints persist',
  'Demand is concentrated',
  'Technology is maturing',
  'Risks are under-priced',
  'Funding has shifted',
  'Data gaps remain',
];
const VERBS = ['grew', 'declined', 'stabilised', 'rose sharply', 'slowed', 'recovered'];

/** The findings of a task's report, each citing one or two of `sources`. */
export function findingsOf(task: TaskRecord, sources: readonly GeneratedSource[]): Finding[] {
  const random = seededRandom(task.seed, 7);
  const { keywords } = topicOf(task.query);
  const subject = keywords.slice(0, 2).join(' ');
  const count = FINDING_COUNTS[task.config.mode];
  const findings: Finding[] = [];
  for (let index = 0; index < count; index++) {
    const percent = random.int(3, 68);
    const year = random.int(2019, 2025);
    const citations = sources.length === 0 ? [] : [...new Set([(index % sources.length) + 1, ((index * 3 + 1) % sources.length) + 1])];
    const cite = citations.map((n) => `[${n}]`).join('');
    const keyword = keywords[index % keywords.length] ?? subject;
    findings.push({
      heading: `${HEADINGS[(index + task.seed) % HEADINGS.length]}`,
      text:
        `Activity around ${keyword} ${random.pick(VERBS)} by about ${percent}% since ${year}, according to the sources reviewed${cite ? ` ${cite}` : ''}. ` +
        `The evidence for ${subject} is ${random.pick(['consistent', 'mixed', 'strong', 'preliminary'])} across publishers, ` +
        `and the figures should be read with the caveats noted in the analysis${cite ? ` ${cite}` : ''}.`,
      citations,
    });
  }
  return findings;
}

/** A short summary paragraph of the report. */
export function summaryOf(task: TaskRecord, findings: readonly Finding[]): string {
  const { keywords } = topicOf(task.query);
  const cites = [...new Set(findings.flatMap((finding) => finding.citations))]
    .slice(0, 3)
    .map((n) => `[${n}]`)
    .join('');
  return (
    `This report examines ${keywords.slice(0, 4).join(' ')}. Across ${findings.length} findings, the sources point to ` +
    `${findings
      .slice(0, 2)
      .map((finding) => finding.heading.toLowerCase())
      .join(' and ')}${cites ? ` ${cites}` : ''}. ` +
    'Confidence is moderate: the strongest evidence comes from primary data and recent filings.'
  );
}
