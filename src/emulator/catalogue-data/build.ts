import type { Datasource } from '../../api/schemas';

/** A catalogue entry as the emulator keeps it: the spec's fields plus its plan gate and the spec's display group. */
export type CatalogueEntry = Datasource & {
  /** Needs a subscription (every dataset except the open academic ones). */
  requires_subscription: boolean;
  /** The spec's catalogue group ("Cybersecurity", "News", ...), kept because some groups are not category ids. */
  group: string;
};

type Frequency = 'real-time' | 'daily' | 'weekly' | 'monthly' | 'quarterly';

/** The fields that differ between entries; the rest are derived. */
export interface EntryFields {
  name: string;
  description: string;
  topics: string[];
  modality: 'text' | 'tabular' | 'time_series';
  examples: [string, string];
  cpm: number;
  frequency: Frequency;
  size: string;
  open?: boolean;
}

const MULTIPLIERS: Record<string, number> = { '': 1, K: 1e3, M: 1e6, B: 1e9 };

/**
 * The record count of a size label such as `1.2M documents`, or undefined when it has none (the clients
 * type `size` as a number; the spec's table shows text).
 */
export function recordCount(size: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([KMB]?)\b/.exec(size);
  return match ? Math.round(Number(match[1]) * (MULTIPLIERS[match[2] ?? ''] ?? 1)) : undefined;
}

/** Every catalogue dataset is usable from Search, Answer and DeepResearch (spec 2.9). */
const ACCESS_MODES = ['search', 'answer', 'deepresearch'];

/** Builds one catalogue entry. */
export function entry(id: string, category: string, group: string, fields: EntryFields): CatalogueEntry {
  return {
    id,
    name: fields.name,
    description: fields.description,
    category,
    // The clients' modalities are text, images and tabular; a time series is a table.
    type: fields.modality === 'text' ? 'unstructured' : 'structured',
    topics: fields.topics,
    modality: [fields.modality === 'text' ? 'text' : 'tabular'],
    example_queries: fields.examples,
    pricing: { cpm: fields.cpm },
    update_frequency: fields.frequency,
    ...(recordCount(fields.size) === undefined ? {} : { size: recordCount(fields.size) }),
    access_modes: [...ACCESS_MODES],
    requires_subscription: !fields.open,
    group,
  };
}
