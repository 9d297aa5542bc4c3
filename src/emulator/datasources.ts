import { z } from 'zod';
import { datasourceCategoryId, listDatasourceCategoriesResponse, listDatasourcesResponse } from '../api/schemas';
import { CATEGORIES, DATASETS } from './catalogue';
import type { EmulatorRoute } from './types';
import { parseRequest, shapeResponse } from './validation';

const listQuery = z.strictObject({ category: datasourceCategoryId.optional() });

/** `GET /v1/datasources[?category=]` and `GET /v1/datasources/categories` over the built-in catalogue. */
export function datasourceRoutes(): EmulatorRoute[] {
  return [
    {
      method: 'GET',
      pattern: '/v1/datasources',
      name: 'datasources.list',
      handle: ({ query }) => {
        const { category } = parseRequest(listQuery, Object.fromEntries(query), 'query');
        const datasources = DATASETS.filter((dataset) => category === undefined || dataset.category === category);
        return { status: 200, json: shapeResponse(listDatasourcesResponse, { success: true, datasources: structuredClone([...datasources]) }) };
      },
    },
    {
      method: 'GET',
      pattern: '/v1/datasources/categories',
      name: 'datasources.categories',
      handle: () => ({ status: 200, json: shapeResponse(listDatasourceCategoriesResponse, { success: true, categories: structuredClone([...CATEGORIES]) }) }),
    },
  ];
}
