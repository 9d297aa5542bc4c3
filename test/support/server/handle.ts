import type { Client, WorkflowHandle } from '@temporalio/client';
import type { QueryDefinition, SignalDefinition, UpdateDefinition } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import type { ScenarioHandle } from '../scenario-env';
import { messageError, queryError, resultError, updateError } from './errors';
import { chainHistories, largestPayloadIn, payloadTextsIn } from './history';

/** A client WorkflowHandle on a real server, behind the scenario interface. */
export class ServerWorkflowHandle<R> implements ScenarioHandle<R> {
  constructor(
    private readonly client: Client,
    private readonly handle: WorkflowHandle,
  ) {}

  get workflowId(): string {
    return this.handle.workflowId;
  }

  async signal<Args extends unknown[]>(signal: SignalDefinition<Args> | string, ...args: Args): Promise<void> {
    await this.handle.signal(signal, ...args).catch((error: unknown) => Promise.reject(messageError(error)));
  }

  async query<T, Args extends unknown[] = []>(query: QueryDefinition<T, Args> | string, ...args: Args): Promise<T> {
    return this.handle.query(query, ...args).catch((error: unknown) => Promise.reject(queryError(error)));
  }

  async executeUpdate<T, Args extends unknown[] = []>(update: UpdateDefinition<T, Args> | string, ...args: Args): Promise<T> {
    const name = typeof update === 'string' ? update : update.name;
    const [first, ...rest] = args;
    // The client's overloads want a literal tuple type; the name and a non-empty tuple satisfy them.
    const result =
      args.length === 0 ? this.handle.executeUpdate<T, []>(name) : this.handle.executeUpdate<T, [unknown, ...unknown[]]>(name, { args: [first, ...rest] });
    return result.catch((error: unknown) => Promise.reject(updateError(error, name)));
  }

  async cancel(): Promise<void> {
    await this.handle.cancel().catch((error: unknown) => Promise.reject(messageError(error)));
  }

  async result(): Promise<R> {
    // The result is what the workflow returned; R is the caller's claim about it.
    return (await this.handle.result().catch((error: unknown) => Promise.reject(resultError(error, this.workflowId)))) as R;
  }

  async searchAttributes(): Promise<Record<string, unknown>> {
    const { typedSearchAttributes } = await this.handle.describe();
    return Object.fromEntries(typedSearchAttributes.getAll().map(({ key, value }) => [key.name, value]));
  }

  async largestPayloadBytes(): Promise<number> {
    const histories = await chainHistories(this.client, this.workflowId);
    return Math.max(0, ...histories.map(largestPayloadIn));
  }

  async payloadsContain(text: string): Promise<boolean> {
    const histories = await chainHistories(this.client, this.workflowId);
    return histories.some((history) => payloadTextsIn(history).some((payload) => payload.includes(text)));
  }

  async historyLength(): Promise<number> {
    const [latest] = await chainHistories(this.client, this.workflowId);
    return latest?.events?.length ?? 0;
  }

  async historyJson(run: 'latest' | 'first' = 'latest'): Promise<unknown> {
    if (run === 'latest') return JSON.parse(historyToJSON(await this.handle.fetchHistory()));
    const histories = await chainHistories(this.client, this.workflowId);
    return JSON.parse(historyToJSON(histories[histories.length - 1]!));
  }

  async runCount(): Promise<number> {
    return (await chainHistories(this.client, this.workflowId)).length;
  }
}
