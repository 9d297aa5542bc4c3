import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import Long from 'long';
import { registerConfiguredSearchAttributes } from '../../src/commands/search-attributes';
import { loadConfig } from '../../src/config';
import { RESEARCH_SEARCH_ATTRIBUTES } from '../../src/workflows/search-attributes';
import { testServer } from '../support/server/test-server';

const server = testServer();

(server.available ? describe : describe.skip)(
  `rp register-search-attributes on the real server${server.available ? '' : ` [skipped: ${server.reason}]`}`,
  () => {
    jest.setTimeout(60_000);
    if (!server.available) return;

    test('registers every attribute on a fresh namespace, then finds nothing to add', async () => {
      const namespace = `attributes-${randomUUID()}`;
      const connection = await Connection.connect({ address: server.address });
      try {
        await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(86_400) } });
        const config = loadConfig({ TEMPORAL_ADDRESS: server.address, TEMPORAL_NAMESPACE: namespace });
        const lines: string[] = [];
        // A namespace just registered takes a moment to reach every server cache.
        const deadline = Date.now() + 30_000;
        for (;;) {
          try {
            await registerConfiguredSearchAttributes(config, (line) => lines.push(line));
            break;
          } catch (error) {
            if (Date.now() > deadline || !/not found|namespace/i.test(String(error))) throw error;
            await new Promise((resolve) => setTimeout(resolve, 500));
          }
        }
        expect(lines).toEqual([`registered search attributes on namespace ${namespace}: ${Object.keys(RESEARCH_SEARCH_ATTRIBUTES).join(', ')}`]);
        const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
        expect(Object.keys(customAttributes ?? {})).toEqual(expect.arrayContaining(Object.keys(RESEARCH_SEARCH_ATTRIBUTES)));
        await registerConfiguredSearchAttributes(config, (line) => lines.push(line));
        expect(lines[1]).toBe(`namespace ${namespace} has every search attribute already`);
      } finally {
        await connection.close();
      }
    });
  },
);
