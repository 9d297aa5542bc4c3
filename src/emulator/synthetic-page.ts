import { createRandom, hashString, pick } from './random';

/** A page the emulator "extracts" from a URL outside its corpus. */
export interface SyntheticPage {
  title: string;
  content: string;
}

const OPENERS = ['This page describes', 'An overview of', 'Notes and background on', 'Frequently asked questions about'] as const;
const SENTENCES = [
  'It summarises the main facts, recent developments and the organisations involved.',
  'Figures are given for the most recent reporting period, with comparisons to the year before.',
  'Several sections link to primary documents and further reading.',
  'The authors note open questions and where the evidence is still limited.',
  'A short glossary explains the technical terms used.',
  'Contact details and update history appear at the end of the page.',
] as const;

/**
 * A deterministic page for a URL the corpus does not hold: the same URL always yields the same text
 * (independent of the emulator's seed), so pipelines that fetch arbitrary pages stay repeatable.
 */
export function syntheticPage(url: string): SyntheticPage {
  const parsed = new URL(url);
  const random = createRandom(hashString(url));
  const words = `${parsed.pathname} ${parsed.hostname.replace(/^www\./, '').split('.')[0] ?? ''}`
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word.length > 1 && !/^\d+$/.test(word));
  const topic = words.length > 0 ? words.slice(0, 5).join(' ') : parsed.hostname;
  const title = `${topic.replace(/\b\w/g, (letter) => letter.toUpperCase())} | ${parsed.hostname.replace(/^www\./, '')}`;
  const count = random.int(3, SENTENCES.length);
  const body = Array.from({ length: count }, () => pick(random, SENTENCES));
  return { title, content: `${pick(random, OPENERS)} ${topic}. ${body.join(' ')}` };
}
