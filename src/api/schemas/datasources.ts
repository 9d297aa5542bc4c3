import { z } from 'zod';

/** Category identifiers of the catalogue. */
export const DATASOURCE_CATEGORIES = [
  'research', 'healthcare', 'markets', 'company', 'economic', 'predictions', 'transportation', 'legal', 'politics', 'patents',
] as const;
export const datasourceCategoryId = z.enum(DATASOURCE_CATEGORIES);

/** A dataset of the catalogue (spec 2.9). */
export const datasource = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  category: z.string(),
  topics: z.array(z.string()),
  modality: z.string(),
  example_queries: z.array(z.string()),
  pricing: z.looseObject({ cpm: z.number() }),
  update_frequency: z.string(),
  size: z.string(),
  access_modes: z.array(z.string()).optional(),
});
export type Datasource = z.infer<typeof datasource>;

/** A catalogue category. */
export const datasourceCategory = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  dataset_count: z.int().min(0),
});
export type DatasourceCategory = z.infer<typeof datasourceCategory>;

/** `GET /v1/datasources` response. */
export const listDatasourcesResponse = z.looseObject({ success: z.boolean(), datasources: z.array(datasource) });
/** `GET /v1/datasources/categories` response. */
export const listDatasourceCategoriesResponse = z.looseObject({ success: z.boolean(), categories: z.array(datasourceCategory) });
