import { contentsJob, contentsJobCreated, contentsJobRequest, contentsRequest, contentsResponse, type ContentsJob, type ContentsResult } from '../api/schemas';
import { generateWebhookSecret } from '../api/webhooks';
import { findByUrl } from './search/corpus';
import { roundUsd } from './accounts';
import { characterBudget, truncate } from './search/text';
import { generateFromSchema } from './structured-output';
import { syntheticPage } from './synthetic-page';
import { EmulatorHttpError, type Account, type EmulatorContext, type EmulatorRoute } from './types';
import { parseRequest, shapeResponse } from './validation';
import { isRecord } from '../shared/guards';

/** USD per extracted URL, and the extra per URL when a summary (an AI feature) is asked for. */
export const CONTENTS_PRICE_PER_URL = 0.001;
export const CONTENTS_AI_PRICE_PER_URL = 0.001;

/** Emulator time a contents job spends per group of 10 URLs before its results are ready. */
export const CONTENTS_JOB_MS_PER_BATCH = 2_000;

type SummaryOption = boolean | string | Record<string, unknown> | undefined;

function summarise(summary: SummaryOption, title: string, content: string): string | Record<string, unknown> | undefined {
  if (summary === undefined || summary === false) return undefined;
  if (typeof summary === 'object') {
    const value = generateFromSchema(summary, `${title} ${content}`);
    return isRecord(value) ? value : { value };
  }
  const sentences = content
    .split(/(?<=\.)\s+/)
    .slice(0, 2)
    .join(' ');
  return typeof summary === 'string' ? `${sentences} (Focus: ${summary.slice(0, 200)})` : sentences;
}

/** Hosts under the reserved `.invalid` TLD (RFC 2606) fail to extract, so callers can test partial failures. */
const fails = (url: string): boolean => new URL(url).hostname.endsWith('.invalid');

interface Extraction {
  results: ContentsResult[];
  processed: number;
  failed: number;
  total: number;
}

/** Extracts each URL in order: a success with its content, or `{ url, status: 'failed', error }`. Failed URLs are free. */
function extract(request: { urls: string[]; summary?: SummaryOption; response_length?: 'short' | 'medium' | 'large' | 'max' | number }): Extraction {
  const withAi = request.summary !== undefined && request.summary !== false;
  const pricePerUrl = roundUsd(CONTENTS_PRICE_PER_URL + (withAi ? CONTENTS_AI_PRICE_PER_URL : 0));
  const budget = characterBudget(request.response_length ?? 'max');
  const results = request.urls.map((url): ContentsResult => {
    if (fails(url)) return { url, status: 'failed', error: `Could not extract ${url}: the host did not answer` };
    const page = findByUrl(url) ?? syntheticPage(url);
    const content = truncate(page.content, budget);
    const summary = summarise(request.summary, page.title, content);
    return {
      url,
      status: 'success',
      title: page.title,
      content,
      length: content.length,
      source: 'web',
      price: pricePerUrl,
      data_type: 'unstructured',
      source_type: 'website',
      ...(summary === undefined ? {} : { summary, summary_success: true }),
    };
  });
  const processed = results.filter((result) => result.status === 'success').length;
  return { results, processed, failed: results.length - processed, total: roundUsd(processed * pricePerUrl) };
}

interface JobRecord {
  id: string;
  organization: string;
  createdAt: number;
  dueAt: number;
  extraction: Extraction;
}

/**
 * `POST /v1/contents`: up to 10 URLs answered at once, or (`async: true`) a job of up to 50 answered 202 and
 * read at `GET /v1/contents/jobs/{id}`; corpus URLs return their document, others a deterministic synthetic
 * page. Charged per extracted URL (plus the AI surcharge with `summary`) when the request is accepted.
 */
export function contentsRoutes(ctx: EmulatorContext): EmulatorRoute[] {
  const jobs = new Map<string, JobRecord>();
  const syncAnswer = (account: Account, body: unknown) => {
    const request = parseRequest(contentsRequest, body);
    const extraction = extract(request);
    ctx.accounts.charge(account, extraction.total, 'contents');
    return {
      status: 200,
      json: shapeResponse(contentsResponse, {
        success: extraction.processed > 0,
        error:
          extraction.failed > 0
            ? `Could not extract ${extraction.failed} URL(s): ${extraction.results
                .filter((result) => result.status === 'failed')
                .map((result) => result.url)
                .join(', ')}`
            : null,
        tx_id: `tx_${ctx.random.hex(24)}`,
        results: extraction.results,
        urls_requested: request.urls.length,
        urls_processed: extraction.processed,
        urls_failed: extraction.failed,
        total_cost_dollars: extraction.total,
        total_characters: extraction.results.reduce((sum, result) => sum + (result.status === 'success' ? result.length : 0), 0),
      }),
    };
  };
  const startJob = (account: Account, body: unknown) => {
    const request = parseRequest(contentsJobRequest, body);
    const extraction = extract(request);
    ctx.accounts.charge(account, extraction.total, 'contents job');
    const now = ctx.clock.now();
    const job: JobRecord = {
      id: `cj_${ctx.random.hex(16)}`,
      organization: account.organization,
      createdAt: now,
      dueAt: now + CONTENTS_JOB_MS_PER_BATCH * Math.ceil(request.urls.length / 10),
      extraction,
    };
    jobs.set(job.id, job);
    return {
      status: 202,
      json: shapeResponse(contentsJobCreated, {
        success: true,
        job_id: job.id,
        status: 'pending',
        urls_total: request.urls.length,
        poll_url: `/v1/contents/jobs/${job.id}`,
        tx_id: `tx_${ctx.random.hex(24)}`,
        ...(request.webhook_url ? { webhook_secret: generateWebhookSecret() } : {}),
      }),
    };
  };
  return [
    {
      method: 'POST',
      pattern: '/v1/contents',
      name: 'contents',
      handle: ({ body, account }) => (isRecord(body) && body.async === true ? startJob(account, body) : syncAnswer(account, body)),
    },
    {
      method: 'GET',
      pattern: '/v1/contents/jobs/:id',
      name: 'contents.job',
      handle: ({ params, account }) => {
        const job = jobs.get(params.id ?? '');
        if (!job || job.organization !== account.organization) throw EmulatorHttpError.of(404, `Job ${params.id ?? ''} not found`);
        return { status: 200, json: shapeResponse(contentsJob, jobView(job, ctx.clock.now())) };
      },
    },
  ];
}

function jobView(job: JobRecord, now: number): ContentsJob {
  const { extraction } = job;
  const total = extraction.results.length;
  const batches = Math.ceil(total / 10);
  const base = { success: true, job_id: job.id, urls_total: total, created_at: job.createdAt, total_batches: batches };
  if (now < job.dueAt) {
    const done = Math.min(batches - 1, Math.floor(((now - job.createdAt) / (job.dueAt - job.createdAt)) * batches));
    return { ...base, status: done === 0 ? 'pending' : 'processing', urls_processed: 0, urls_failed: 0, updated_at: now, current_batch: done + 1 };
  }
  const status = extraction.processed === 0 ? 'failed' : extraction.failed > 0 ? 'partial' : 'completed';
  return {
    ...base,
    status,
    urls_processed: extraction.processed,
    urls_failed: extraction.failed,
    updated_at: job.dueAt,
    current_batch: batches,
    results: extraction.results,
    actual_cost_dollars: extraction.total,
    ...(status === 'failed' ? { error: 'No URL could be extracted' } : {}),
  };
}
