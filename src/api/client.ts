import { inspect } from 'node:util';
import { z } from 'zod';
import * as s from './schemas';
import { ResearchApiError } from './errors';
import { parseAnswerStream, type AnswerStreamEvent } from './sse';
import { Transport, type CallOptions, type CallSpec, type RawResponse, type ResearchClientOptions } from './transport';

/** A downloaded asset: its bytes and content type. */
export interface TaskAsset {
  contentType: string;
  data: Uint8Array;
}

/** A file the service serves, as a stream of chunks (read it once, to the end or until it throws). */
export interface TaskAssetStream {
  contentType: string;
  body: AsyncIterable<Uint8Array>;
}

/** A typed event of the Answer stream. */
export type AnswerEvent = AnswerStreamEvent<z.infer<typeof s.answerSearchResult>, z.infer<typeof s.answerContentEvent>, s.AnswerMetadata>;

const id = (value: string): string => encodeURIComponent(value);

/**
 * Typed client of the research service: one method per route, requests checked against the spec's
 * rules before sending, responses parsed (never cast), one attempt per call (retries belong to Temporal).
 */
export class ResearchClient {
  readonly #http: Transport;

  constructor(options: ResearchClientOptions) {
    this.#http = new Transport(options);
  }

  /** The service base URL (ending in `/v1` for the real service). */
  get baseUrl(): string {
    return this.#http.baseUrl;
  }

  /** `POST /search`: ranked results; `partial` is true when the service answered 206. */
  async search(request: s.SearchRequest, options?: CallOptions): Promise<s.SearchResponse> {
    const { data, partial } = await this.#http.json(
      { method: 'POST', path: '/search', body: request, requestSchema: s.searchRequest, responseSchema: s.searchResponse },
      options,
    );
    return { ...data, partial };
  }

  /** `POST /contents`: clean content of up to 10 URLs; each result has `status` `success` or `failed`. */
  async contents(request: s.ContentsRequest, options?: CallOptions): Promise<s.ContentsResponse> {
    return this.#data({ method: 'POST', path: '/contents', body: request, requestSchema: s.contentsRequest, responseSchema: s.contentsResponse }, options);
  }

  /** `POST /contents` with `async: true`: starts a job of up to 50 URLs (the service answers 202). */
  async startContentsJob(request: Omit<s.ContentsJobRequest, 'async'>, options?: CallOptions): Promise<s.ContentsJobCreated> {
    return this.#data(
      { method: 'POST', path: '/contents', body: { ...request, async: true }, requestSchema: s.contentsJobRequest, responseSchema: s.contentsJobCreated },
      options,
    );
  }

  /** `GET /contents/jobs/{id}`: a contents job's progress, with its results once it has ended. */
  async getContentsJob(jobId: string, options?: CallOptions): Promise<s.ContentsJob> {
    return this.#data({ method: 'GET', path: `/contents/jobs/${id(jobId)}`, responseSchema: s.contentsJob }, options);
  }

  /**
   * `POST /answer`: typed events parsed from the SSE stream as they arrive, ending with `done`. The
   * time limit applies to the response head and then between chunks, so a long answer is not cut off.
   */
  async *answer(request: s.AnswerRequest, options?: CallOptions): AsyncGenerator<AnswerEvent> {
    const parsed = s.answerRequest.safeParse(request);
    const path = this.#http.pathOf('/answer');
    if (!parsed.success) {
      throw ResearchApiError.invalidRequest({ method: 'POST', path, error: parsed.error });
    }
    const response = await this.#http.send('POST', '/answer', { body: parsed.data, options, accept: 'text/event-stream', stream: true });
    yield* parseAnswerStream(this.#chunks(response), {
      method: 'POST',
      path,
      validate: { searchResults: s.answerSearchResultsEvent, content: s.answerContentEvent, metadata: s.answerMetadataEvent },
      maxEventBytes: this.#http.limits.maxEventBytes,
    });
  }

  /** `POST /deepresearch/tasks`: starts a paid task. The `webhook_secret` in the answer is a secret. */
  async createTask(request: s.CreateTaskRequest, options?: CallOptions): Promise<s.CreateTaskResponse> {
    return this.#data(
      { method: 'POST', path: '/deepresearch/tasks', body: request, requestSchema: s.createTaskRequest, responseSchema: s.createTaskResponse },
      options,
    );
  }

  /** `GET /deepresearch/tasks/{id}/status`: status, progress, checkpoint and, when done, the output. */
  async getTask(taskId: string, options?: CallOptions): Promise<s.Task> {
    return this.#data({ method: 'GET', path: `/deepresearch/tasks/${id(taskId)}/status`, responseSchema: s.task }, options);
  }

  /** `POST /deepresearch/tasks/{id}/update`: a follow-up instruction, before the writing phase. */
  async updateTask(taskId: string, instruction: string, options?: CallOptions): Promise<s.TaskActionResponse> {
    return this.#data(
      {
        method: 'POST',
        path: `/deepresearch/tasks/${id(taskId)}/update`,
        body: { instruction },
        requestSchema: s.updateTaskRequest,
        responseSchema: s.updateTaskResponse,
      },
      options,
    );
  }

  /** `POST /deepresearch/tasks/{id}/cancel`: only queued or running tasks. */
  async cancelTask(taskId: string, options?: CallOptions): Promise<s.TaskActionResponse> {
    return this.#data({ method: 'POST', path: `/deepresearch/tasks/${id(taskId)}/cancel`, responseSchema: s.taskActionResponse }, options);
  }

  /** `DELETE /deepresearch/tasks/{id}/delete`: only completed, failed or cancelled tasks. */
  async deleteTask(taskId: string, options?: CallOptions): Promise<s.TaskActionResponse> {
    return this.#data({ method: 'DELETE', path: `/deepresearch/tasks/${id(taskId)}/delete`, responseSchema: s.taskActionResponse }, options);
  }

  /** `POST /deepresearch/tasks/{id}/public`: sets the task's visibility. */
  async setTaskPublic(taskId: string, isPublic: boolean, options?: CallOptions): Promise<s.SetTaskPublicResponse> {
    return this.#data(
      {
        method: 'POST',
        path: `/deepresearch/tasks/${id(taskId)}/public`,
        body: { public: isPublic },
        requestSchema: s.setTaskPublicRequest,
        responseSchema: s.setTaskPublicResponse,
      },
      options,
    );
  }

  /** `POST /deepresearch/tasks/{id}/respond`: answers the checkpoint of an `awaiting_input` or `paused` task. */
  async respondToCheckpoint(taskId: string, answer: s.RespondRequest, options?: CallOptions): Promise<s.RespondResponse> {
    return this.#data(
      { method: 'POST', path: `/deepresearch/tasks/${id(taskId)}/respond`, body: answer, requestSchema: s.respondRequest, responseSchema: s.respondResponse },
      options,
    );
  }

  /** `GET /deepresearch/list`: the account's most recent tasks, newest first (items carry no metadata); `limit` 1 to 100, every task without it. */
  async listTasks(query: { limit?: number } = {}, options?: CallOptions): Promise<s.TaskSummary[]> {
    return this.#data({ method: 'GET', path: '/deepresearch/list', query, responseSchema: s.listTasksResponse }, options);
  }

  /** `GET /deepresearch/tasks/{id}/assets/{assetId}`: a generated file's bytes. */
  async getTaskAsset(taskId: string, assetId: string, query: { token?: string } = {}, options?: CallOptions): Promise<TaskAsset> {
    return this.downloadAsset(`/deepresearch/tasks/${id(taskId)}/assets/${id(assetId)}${query.token ? `?token=${id(query.token)}` : ''}`, options);
  }

  /**
   * Streams a file the service linked to (a deliverable, `pdf_url`, an image), as a path under the base
   * URL or an absolute URL; the API key is sent only to the service's own origin.
   */
  async streamAsset(pathOrUrl: string, options?: CallOptions): Promise<TaskAssetStream> {
    // The time limit covers the response head, then each gap between chunks: a large file may take long.
    const response = await this.#http.send('GET', pathOrUrl, { options, accept: '*/*', stream: true });
    const contentType = response.headers['content-type'];
    const http = this.#http;
    const max = http.limits.maxDownloadBytes;
    const tooLarge = (bytes: number) =>
      ResearchApiError.invalidResponse({
        ...response.target,
        status: response.status,
        detail: `the file is over the ${max} bytes a download may have (${bytes} or more): not read further`,
      });
    const announced = Number(response.headers['content-length']);
    if (Number.isFinite(announced) && announced > max) {
      response.body.destroy();
      throw tooLarge(announced);
    }
    async function* chunks(): AsyncGenerator<Uint8Array> {
      let bytes = 0;
      try {
        for await (const chunk of response.body) {
          bytes += (chunk as Uint8Array).length;
          if (bytes > max) {
            response.body.destroy();
            throw tooLarge(bytes);
          }
          yield chunk as Uint8Array;
        }
      } catch (cause) {
        throw http.bodyError(cause, response.target);
      }
    }
    return { contentType: (Array.isArray(contentType) ? contentType[0] : contentType) ?? 'application/octet-stream', body: chunks() };
  }

  /** `GET /deepresearch/tasks/{id}/assets/{assetId}` as a stream (see streamAsset). */
  async streamTaskAsset(taskId: string, assetId: string, options?: CallOptions): Promise<TaskAssetStream> {
    return this.streamAsset(`/deepresearch/tasks/${id(taskId)}/assets/${id(assetId)}`, options);
  }

  /** Downloads a whole file the service linked to; see streamAsset for large ones. */
  async downloadAsset(pathOrUrl: string, options?: CallOptions): Promise<TaskAsset> {
    const { contentType, body } = await this.streamAsset(pathOrUrl, options);
    const chunks: Uint8Array[] = [];
    for await (const chunk of body) chunks.push(chunk);
    return { contentType, data: new Uint8Array(Buffer.concat(chunks)) };
  }

  /** `POST /deepresearch/batches`: a batch with shared configuration. The `webhook_secret` is a secret. */
  async createBatch(request: s.CreateBatchRequest, options?: CallOptions): Promise<s.Batch> {
    return this.#data(
      { method: 'POST', path: '/deepresearch/batches', body: request, requestSchema: s.createBatchRequest, responseSchema: s.createBatchResponse },
      options,
    );
  }

  /** `GET /deepresearch/batches/{id}`: status and counts (the service sends the batch itself). */
  async getBatch(batchId: string, options?: CallOptions): Promise<s.Batch> {
    return this.#data({ method: 'GET', path: `/deepresearch/batches/${id(batchId)}`, responseSchema: s.getBatchResponse }, options);
  }

  /** `GET /deepresearch/batches`: the account's batches (a bare array). */
  async listBatches(options?: CallOptions): Promise<s.Batch[]> {
    return this.#data({ method: 'GET', path: '/deepresearch/batches', responseSchema: s.listBatchesResponse }, options);
  }

  /** `POST /deepresearch/batches/{id}/tasks`: adds 1 to 100 tasks. */
  async addBatchTasks(batchId: string, tasks: s.AddBatchTasksRequest['tasks'], options?: CallOptions): Promise<s.AddBatchTasksResponse> {
    return this.#data(
      {
        method: 'POST',
        path: `/deepresearch/batches/${id(batchId)}/tasks`,
        body: { tasks },
        requestSchema: s.addBatchTasksRequest,
        responseSchema: s.addBatchTasksResponse,
      },
      options,
    );
  }

  /** One page of a batch's tasks; pass the previous page's `pagination.last_key` to go on. */
  async listBatchTasksPage(batchId: string, query: s.ListBatchTasksQuery = {}, options?: CallOptions): Promise<s.ListBatchTasksResponse> {
    const parsed = s.listBatchTasksQuery.safeParse(query);
    if (!parsed.success) {
      throw ResearchApiError.invalidRequest({ method: 'GET', path: this.#http.pathOf(`/deepresearch/batches/${id(batchId)}/tasks`), error: parsed.error });
    }
    return this.#data(
      { method: 'GET', path: `/deepresearch/batches/${id(batchId)}/tasks`, query: parsed.data, responseSchema: s.listBatchTasksResponse },
      options,
    );
  }

  /** `GET /deepresearch/batches/{id}/tasks`: every page in turn, as an async iterator. */
  async *listBatchTasks(batchId: string, query: s.ListBatchTasksQuery = {}, options?: CallOptions): AsyncGenerator<s.ListBatchTasksResponse> {
    let lastKey = query.last_key;
    for (;;) {
      const page = await this.listBatchTasksPage(batchId, { ...query, last_key: lastKey }, options);
      yield page;
      if (!page.pagination.has_more || !page.pagination.last_key) return;
      lastKey = page.pagination.last_key;
    }
  }

  /** `POST /deepresearch/batches/{id}/cancel`: cancels the batch's queued and running tasks. */
  async cancelBatch(batchId: string, options?: CallOptions): Promise<s.CancelBatchResponse> {
    return this.#data({ method: 'POST', path: `/deepresearch/batches/${id(batchId)}/cancel`, responseSchema: s.cancelBatchResponse }, options);
  }

  /** `GET /workflows`: curated and organisation workflows. */
  async listWorkflows(options?: CallOptions): Promise<s.WorkflowRecord[]> {
    const body = await this.#data({ method: 'GET', path: '/workflows', responseSchema: s.listWorkflowsResponse }, options);
    return body.workflows;
  }

  /** `GET /workflows/{slug}`: one workflow. */
  async getWorkflow(slug: string, options?: CallOptions): Promise<s.WorkflowRecord> {
    return this.#data({ method: 'GET', path: `/workflows/${id(slug)}`, responseSchema: s.getWorkflowResponse }, options);
  }

  /** `POST /workflows/{slug}/preview`: resolves the template without running (or paying for) it. */
  async previewWorkflow(slug: string, request: s.PreviewWorkflowRequest, options?: CallOptions): Promise<s.PreviewWorkflowResponse> {
    return this.#data(
      {
        method: 'POST',
        path: `/workflows/${id(slug)}/preview`,
        body: request,
        requestSchema: s.previewWorkflowRequest,
        responseSchema: s.previewWorkflowResponse,
      },
      options,
    );
  }

  /** `GET /workflows/{slug}/versions`: its immutable versions. */
  async listWorkflowVersions(slug: string, options?: CallOptions): Promise<s.ListWorkflowVersionsResponse> {
    return this.#data({ method: 'GET', path: `/workflows/${id(slug)}/versions`, responseSchema: s.listWorkflowVersionsResponse }, options);
  }

  /** `DELETE /workflows/{slug}`: soft-deletes an organisation workflow. */
  async deleteWorkflow(slug: string, options?: CallOptions): Promise<s.DeleteWorkflowResponse> {
    return this.#data({ method: 'DELETE', path: `/workflows/${id(slug)}`, responseSchema: s.deleteWorkflowResponse }, options);
  }

  /** `GET /datasources`: the catalogue, optionally one category. */
  async listDatasources(query: { category?: string } = {}, options?: CallOptions): Promise<s.Datasource[]> {
    const body = await this.#data({ method: 'GET', path: '/datasources', query, responseSchema: s.listDatasourcesResponse }, options);
    return body.datasources;
  }

  /** `GET /datasources/categories`: the catalogue's categories. */
  async listDatasourceCategories(options?: CallOptions): Promise<s.DatasourceCategory[]> {
    const body = await this.#data({ method: 'GET', path: '/datasources/categories', responseSchema: s.listDatasourceCategoriesResponse }, options);
    return body.categories;
  }

  /** Closes the client's connections. */
  async close(): Promise<void> {
    await this.#http.close();
  }

  toString(): string {
    return `ResearchClient(${this.baseUrl})`;
  }

  [inspect.custom](): string {
    return this.toString();
  }

  toJSON(): Record<string, unknown> {
    return { baseUrl: this.baseUrl };
  }

  /** The body's chunks as they arrive; a reset or timeout mid-stream becomes a classified `ResearchApiError`. */
  async *#chunks(response: RawResponse): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of response.body) yield chunk as Uint8Array;
    } catch (cause) {
      throw this.#http.bodyError(cause, response.target);
    }
  }

  async #data<Schema extends z.ZodType>(spec: CallSpec<Schema>, options?: CallOptions): Promise<z.output<Schema>> {
    return (await this.#http.json(spec, options)).data;
  }
}
