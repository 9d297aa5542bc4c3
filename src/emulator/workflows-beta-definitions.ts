import type { ResearchMode } from '../api/schemas';

/**
 * A template variable as the emulator checks it. The wire form (`key`, `label`, `type`, `validation`) is
 * derived from it by `wireVariable`; its richer types are the emulator's own reading of a value.
 */
export interface VariableDefinition {
  name: string;
  type: 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'array' | 'date';
  required?: boolean;
  description?: string;
  default?: unknown;
  options?: string[];
}

/** The template one version resolves from; `{{name}}` marks a variable. */
export interface WorkflowTemplate {
  input: string;
  research_strategy?: string;
  report_format?: string;
  deliverables?: Array<{ type: string; description: string }>;
  tools?: { code_execution: boolean; screenshots: boolean; browser_use: boolean; charts: boolean };
  output_formats?: Array<'markdown' | 'pdf' | 'toon' | Record<string, unknown>>;
}

/** One immutable version of a workflow. */
export interface WorkflowVersionDefinition {
  version: number;
  recommended_mode: ResearchMode;
  estimated_time: string;
  changelog: string;
  created_at: string;
  variables: VariableDefinition[];
  template: WorkflowTemplate;
}

/** A workflow: curated (read-only, for everyone) or one organisation's own; the last version is current. */
export interface WorkflowDefinition {
  slug: string;
  title: string;
  subtitle?: string;
  description: string;
  vertical?: string;
  tags: string[];
  icon?: string;
  scope: 'curated' | 'organization';
  /** The organisation that owns it (organisation workflows only). */
  owner?: string;
  versions: WorkflowVersionDefinition[];
  /** The version marked current when it is not the newest (`set_current: false` on update). */
  current?: number;
  updated_at?: string;
  deleted_at?: string;
}

const NO_TOOLS = { code_execution: false, screenshots: false, browser_use: false, charts: false };
const str = (name: string, description: string, required = true): VariableDefinition => ({ name, type: 'string', required, description });

const companyV1: WorkflowTemplate = {
  input: 'Write a company profile of {{company}}.',
  report_format: 'Sections: overview, products, customers, leadership, recent news.',
  tools: NO_TOOLS,
  output_formats: ['markdown'],
};

/** Curated workflows every organisation can read and run but not change. */
export const CURATED_WORKFLOWS: readonly WorkflowDefinition[] = [
  {
    slug: 'company-profile',
    title: 'Company profile',
    description: 'A sourced profile of one company: business, products, customers, leadership and news.',
    vertical: 'company',
    tags: ['company', 'profile'],
    scope: 'curated',
    versions: [
      {
        version: 1,
        recommended_mode: 'standard',
        estimated_time: '10-20 minutes',
        changelog: 'First version.',
        created_at: '2025-01-06T10:00:00.000Z',
        variables: [str('company', 'Company name')],
        template: companyV1,
      },
      {
        version: 2,
        recommended_mode: 'standard',
        estimated_time: '10-20 minutes',
        changelog: 'Adds website and focus variables.',
        created_at: '2025-02-10T10:00:00.000Z',
        variables: [
          str('company', 'Company name'),
          str('website', 'Official website', false),
          { name: 'focus', type: 'enum', options: ['overview', 'financials', 'products'], default: 'overview', description: 'Emphasis of the profile' },
        ],
        template: {
          ...companyV1,
          input: 'Write a company profile of {{company}} ({{website}}), with emphasis on {{focus}}.',
          research_strategy: 'Start from the official website and filings, then recent news.',
          output_formats: ['markdown', 'pdf'],
        },
      },
    ],
  },
  {
    slug: 'competitor-scan',
    title: 'Competitor scan',
    description: 'Finds and compares the main competitors of a company in one market.',
    vertical: 'company',
    tags: ['competitors', 'market'],
    scope: 'curated',
    versions: [
      {
        version: 1,
        recommended_mode: 'heavy',
        estimated_time: '30-60 minutes',
        changelog: 'First version.',
        created_at: '2025-01-20T10:00:00.000Z',
        variables: [
          str('company', 'Company name'),
          str('market', 'Market or segment'),
          { name: 'max_competitors', type: 'integer', default: 5, description: 'How many competitors to compare' },
          { name: 'since', type: 'date', required: false, description: 'Only developments after this date' },
        ],
        template: {
          input: 'Identify up to {{max_competitors}} competitors of {{company}} in {{market}} and compare them. Developments since: {{since}}.',
          research_strategy: 'Use filings, press releases and product pages; prefer primary sources.',
          report_format: 'A comparison table followed by one section per competitor.',
          deliverables: [{ type: 'spreadsheet', description: 'Competitor comparison table for {{company}}' }],
          tools: { ...NO_TOOLS, charts: true },
          output_formats: ['markdown'],
        },
      },
    ],
  },
  {
    slug: 'literature-review',
    title: 'Literature review',
    description: 'A structured review of the research literature on a topic.',
    vertical: 'research',
    tags: ['academic', 'review'],
    scope: 'curated',
    versions: [
      {
        version: 1,
        recommended_mode: 'standard',
        estimated_time: '15-30 minutes',
        changelog: 'First version.',
        created_at: '2024-11-04T10:00:00.000Z',
        variables: [str('topic', 'Research topic')],
        template: { input: 'Review the literature on {{topic}}.', tools: NO_TOOLS, output_formats: ['markdown'] },
      },
      {
        version: 2,
        recommended_mode: 'heavy',
        estimated_time: '30-60 minutes',
        changelog: 'Date bound, preprint switch and depth.',
        created_at: '2025-01-13T10:00:00.000Z',
        variables: [
          str('topic', 'Research topic'),
          { name: 'from_date', type: 'date', required: true, description: 'Earliest publication date' },
          { name: 'include_preprints', type: 'boolean', default: true },
          { name: 'depth', type: 'enum', options: ['quick', 'thorough'], default: 'thorough' },
        ],
        template: {
          input: 'Review the literature on {{topic}} published since {{from_date}}. Include preprints: {{include_preprints}}. Depth: {{depth}}.',
          research_strategy: 'Search academic datasets first; summarise methods, findings and disagreements.',
          report_format: 'Background, methods of the reviewed studies, findings, open questions, references.',
          tools: { ...NO_TOOLS, code_execution: true },
          output_formats: ['markdown', 'pdf'],
        },
      },
    ],
  },
  {
    slug: 'regulatory-watch',
    title: 'Regulatory watch',
    description: 'Recent regulatory developments on a topic in one jurisdiction.',
    vertical: 'legal',
    tags: ['regulation', 'compliance'],
    scope: 'curated',
    versions: [
      {
        version: 1,
        recommended_mode: 'fast',
        estimated_time: '2-5 minutes',
        changelog: 'First version.',
        created_at: '2025-02-03T10:00:00.000Z',
        variables: [
          str('topic', 'Regulatory topic'),
          { name: 'jurisdiction', type: 'enum', options: ['US', 'EU', 'UK'], required: true },
          { name: 'since', type: 'date', required: true },
        ],
        template: { input: 'List regulatory developments on {{topic}} in {{jurisdiction}} since {{since}}.', tools: NO_TOOLS, output_formats: ['markdown'] },
      },
    ],
  },
];

/** The workflows every organisation starts with (each organisation gets its own copies). */
export function seedOrganizationWorkflows(): WorkflowDefinition[] {
  return [
    {
      slug: 'weekly-market-brief',
      title: 'Weekly market brief',
      description: "The organisation's weekly brief on a sector.",
      vertical: 'markets',
      tags: ['weekly', 'brief'],
      scope: 'organization',
      versions: [
        {
          version: 1,
          recommended_mode: 'fast',
          estimated_time: '2-5 minutes',
          changelog: 'First version.',
          created_at: '2025-01-08T09:00:00.000Z',
          variables: [str('sector', 'Sector')],
          template: { input: 'Weekly brief on the {{sector}} sector.', tools: NO_TOOLS, output_formats: ['markdown'] },
        },
        {
          version: 2,
          recommended_mode: 'standard',
          estimated_time: '10-20 minutes',
          changelog: 'Regions and week ending.',
          created_at: '2025-02-12T09:00:00.000Z',
          variables: [
            str('sector', 'Sector'),
            { name: 'regions', type: 'array', default: ['US', 'EU'] },
            { name: 'week_ending', type: 'date', required: true },
          ],
          template: {
            input: 'Weekly brief on the {{sector}} sector in {{regions}} for the week ending {{week_ending}}.',
            report_format: 'Five bullet points, then detail.',
            tools: NO_TOOLS,
            output_formats: ['markdown'],
          },
        },
      ],
    },
    {
      slug: 'vendor-risk-review',
      title: 'Vendor risk review',
      description: 'Due-diligence review of a supplier before contract renewal.',
      vertical: 'company',
      tags: ['risk', 'procurement'],
      scope: 'organization',
      versions: [
        {
          version: 1,
          recommended_mode: 'standard',
          estimated_time: '10-20 minutes',
          changelog: 'First version.',
          created_at: '2025-01-15T09:00:00.000Z',
          variables: [
            str('vendor', 'Vendor name'),
            { name: 'criticality', type: 'enum', options: ['low', 'medium', 'high'], default: 'medium' },
            { name: 'annual_spend_usd', type: 'number', required: false },
          ],
          template: {
            input: 'Review the risks of vendor {{vendor}} (criticality {{criticality}}, annual spend {{annual_spend_usd}} USD).',
            deliverables: [{ type: 'document', description: 'Risk memo on {{vendor}}' }],
            tools: NO_TOOLS,
            output_formats: ['markdown'],
          },
        },
      ],
    },
  ];
}
