import { z } from 'zod';

/** Category identifiers of the catalogue. */
export const DATASOURCE_CATEGORIES = [
  'research',
  'healthcare',
  'markets',
  'company',
  'economic',
  'predictions',
  'transportation',
  'legal',
  'politics',
  'patents',
] as const;
export const datasourceCategoryId = z.enum(DATASOURCE_CATEGORIES);

/** What a dataset holds (the JS client's `DatasourceModality`). */
export const datasourceModality = z.enum(['text', 'images', 'tabular']);

/**
 * A dataset of the catalogue. Where the spec (2.9) and the official clients differ, the clients win:
 * `modality` is an array, `size` a number (of records), and there is a `type`.
 */
export const datasource = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  type: z.string().optional(),
  modality: z.array(z.string()).optional(),
  topics: z.array(z.string()).optional(),
  languages: z.array(z.string()).optional(),
  source: z.string().optional(),
  example_queries: z.array(z.string()).optional(),
  pricing: z.looseObject({ cpm: z.number().nonnegative() }).optional(),
  response_schema: z.record(z.string(), z.unknown()).optional(),
  update_frequency: z.string().optional(),
  size: z.number().nonnegative().optional(),
  coverage: z.looseObject({ start_date: z.string().nullable().optional(), end_date: z.string().nullable().optional() }).optional(),
  access_modes: z.array(z.string()).optional(),
});
export type Datasource = z.infer<typeof datasource>;

/** A catalogue category. */
export const datasourceCategory = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string().optional(),
  dataset_count: z.int().min(0),
});
export type DatasourceCategory = z.infer<typeof datasourceCategory>;

/** `GET /v1/datasources` response. */
export const listDatasourcesResponse = z.looseObject({ success: z.boolean(), datasources: z.array(datasource) });
/** `GET /v1/datasources/categories` response. */
export const listDatasourceCategoriesResponse = z.looseObject({ success: z.boolean(), categories: z.array(datasourceCategory) });
