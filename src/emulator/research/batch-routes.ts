import {
  addBatchTasksResponse,
  batch as batchSchema,
  cancelBatchResponse,
  getBatchResponse,
  listBatchesResponse,
  listBatchTasksResponse,
} from '../../api/schemas/batches';
import { EmulatorHttpError, type EmulatorRequest, type EmulatorResponse, type EmulatorRoute } from '../types';
import { shapeResponse } from '../validation';
import type { BatchService } from './batch-service';

const BASE = '/v1/deepresearch/batches';

function id(request: EmulatorRequest): string {
  const value = request.params.id;
  if (value === undefined) throw EmulatorHttpError.of(404, 'Batch not found');
  return value;
}

function ok(json: unknown): EmulatorResponse {
  return { status: 200, json };
}

/** The batch routes (spec 4.10 and the batch facts of ARCHITECTURE); all need the `inference` permission. */
export function batchRoutes(batches: BatchService): EmulatorRoute[] {
  return [
    {
      method: 'POST',
      pattern: BASE,
      name: 'batches.create',
      requiresInference: true,
      handle: (request) => ok(shapeResponse(batchSchema, batches.create(request.account, request.body))),
    },
    {
      method: 'GET',
      pattern: BASE,
      name: 'batches.list',
      requiresInference: true,
      handle: (request) => ok(shapeResponse(listBatchesResponse, batches.list(request.account, request.query))),
    },
    {
      method: 'GET',
      pattern: `${BASE}/:id`,
      name: 'batches.get',
      requiresInference: true,
      handle: (request) => ok(shapeResponse(getBatchResponse, batches.get(request.account, id(request)))),
    },
    {
      method: 'POST',
      pattern: `${BASE}/:id/tasks`,
      name: 'batches.addTasks',
      requiresInference: true,
      handle: (request) => ok(shapeResponse(addBatchTasksResponse, batches.add(request.account, id(request), request.body))),
    },
    {
      method: 'GET',
      pattern: `${BASE}/:id/tasks`,
      name: 'batches.listTasks',
      requiresInference: true,
      handle: (request) => ok(shapeResponse(listBatchTasksResponse, batches.listTasks(request.account, id(request), request.query))),
    },
    {
      method: 'POST',
      pattern: `${BASE}/:id/cancel`,
      name: 'batches.cancel',
      requiresInference: true,
      handle: (request) => ok(shapeResponse(cancelBatchResponse, batches.cancel(request.account, id(request)))),
    },
  ];
}
