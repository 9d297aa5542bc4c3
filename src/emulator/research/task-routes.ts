import { createTaskResponse, listTasksResponse, setTaskPublicResponse, task as taskSchema, updateTaskResponse } from '../../api/schemas/tasks';
import { respondResponse } from '../../api/schemas/checkpoints';
import { taskActionResponse } from '../../api/schemas/common';
import { EmulatorHttpError, type EmulatorRequest, type EmulatorResponse, type EmulatorRoute } from '../types';
import { shapeResponse } from '../validation';
import type { TaskService } from './task-service';

const BASE = '/v1/deepresearch';

function param(request: EmulatorRequest, name: string): string {
  const value = request.params[name];
  if (value === undefined) throw EmulatorHttpError.of(404, 'Task not found');
  return value;
}

function ok(json: unknown): EmulatorResponse {
  return { status: 200, json };
}

/** The task routes of spec 4.4-4.9 plus respond, list and assets; all need the `inference` permission. */
export function taskRoutes(tasks: TaskService): EmulatorRoute[] {
  const getTask = (request: EmulatorRequest): EmulatorResponse => ok(shapeResponse(taskSchema, tasks.get(request.account, param(request, 'id'))));
  return [
    {
      method: 'POST',
      pattern: `${BASE}/tasks`,
      name: 'deepresearch.create',
      requiresInference: true,
      handle: (request) => ok(shapeResponse(createTaskResponse, tasks.create(request.account, request.body))),
    },
    { method: 'GET', pattern: `${BASE}/tasks/:id/status`, name: 'deepresearch.status', requiresInference: true, handle: getTask },
    { method: 'GET', pattern: `${BASE}/tasks/:id`, name: 'deepresearch.get', requiresInference: true, handle: getTask },
    {
      method: 'POST',
      pattern: `${BASE}/tasks/:id/update`,
      name: 'deepresearch.update',
      requiresInference: true,
      handle: (request) => ok(shapeResponse(updateTaskResponse, tasks.update(request.account, param(request, 'id'), request.body))),
    },
    {
      method: 'POST',
      pattern: `${BASE}/tasks/:id/respond`,
      name: 'deepresearch.respond',
      requiresInference: true,
      handle: (request) => ok(shapeResponse(respondResponse, tasks.respond(request.account, param(request, 'id'), request.body))),
    },
    {
      method: 'POST',
      pattern: `${BASE}/tasks/:id/cancel`,
      name: 'deepresearch.cancel',
      requiresInference: true,
      handle: (request) => ok(shapeResponse(taskActionResponse, tasks.cancel(request.account, param(request, 'id')))),
    },
    {
      method: 'DELETE',
      pattern: `${BASE}/tasks/:id/delete`,
      name: 'deepresearch.delete',
      requiresInference: true,
      handle: (request) => ok(shapeResponse(taskActionResponse, tasks.delete(request.account, param(request, 'id')))),
    },
    {
      method: 'POST',
      pattern: `${BASE}/tasks/:id/public`,
      name: 'deepresearch.public',
      requiresInference: true,
      handle: (request) => ok(shapeResponse(setTaskPublicResponse, tasks.setPublic(request.account, param(request, 'id'), request.body))),
    },
    {
      method: 'GET',
      pattern: `${BASE}/list`,
      name: 'deepresearch.list',
      requiresInference: true,
      handle: (request) => ok(shapeResponse(listTasksResponse, tasks.list(request.account, request.query))),
    },
    {
      method: 'GET',
      pattern: `${BASE}/tasks/:id/assets/:assetId`,
      name: 'deepresearch.asset',
      requiresInference: true,
      handle: (request) => assetResponse(tasks, request),
    },
  ];
}

/**
 * Serves a completed task's file. The owner's organisation may fetch it; anyone else needs the task to
 * be public or the link's `token` (asset URLs carry it, as signed download links do).
 */
function assetResponse(tasks: TaskService, request: EmulatorRequest): EmulatorResponse {
  const task = tasks.find(param(request, 'id'));
  const token = request.query.get('token');
  const owner = task?.organization === request.account.organization;
  if (!task || (!owner && !task.public && token === null)) throw EmulatorHttpError.of(404, 'Task not found');
  if (!owner && !task.public && token !== task.assetToken) throw EmulatorHttpError.of(403, 'Invalid asset token');
  if (task.status !== 'completed') throw EmulatorHttpError.of(404, `Asset not found: the task is ${task.status}, and files exist only once it has completed`);
  const file = tasks.outputs.get(task).files.get(param(request, 'assetId'));
  if (!file) throw EmulatorHttpError.of(404, 'Asset not found');
  return {
    status: 200,
    raw: file.bytes(),
    contentType: file.contentType,
    headers: { 'content-disposition': `attachment; filename="${file.filename}"`, 'cache-control': 'private, max-age=3600' },
  };
}
