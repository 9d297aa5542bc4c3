import type { z } from 'zod';
import { issuesFrom } from '../../src/api/errors';
import * as s from '../../src/api/schemas';

/** The issues of a failed parse as `path: message` lines, as `ResearchApiError` shows them; [] when it parses. */
function problems(schema: z.ZodType, value: unknown): string[] {
  const result = schema.safeParse(value);
  return result.success ? [] : issuesFrom(result.error).map((issue) => `${issue.path}: ${issue.message}`);
}

/** The parsed value, failing the test with the issues when it does not parse. */
function parsed<Schema extends z.ZodType>(schema: Schema, value: unknown): z.output<Schema> {
  const result = schema.safeParse(value);
  if (!result.success) throw new Error(`expected to parse: ${problems(schema, value).join('; ')}`);
  return result.data;
}

const repeat = (count: number) => 'x'.repeat(count);
const times = <T>(count: number, make: (index: number) => T): T[] => Array.from({ length: count }, (_, index) => make(index));

describe('createTaskRequest limits', () => {
  test('accepts a 25,000-character query and rejects 25,001, naming query', () => {
    expect(problems(s.createTaskRequest, { query: repeat(25_000) })).toEqual([]);
    expect(problems(s.createTaskRequest, { query: repeat(25_001) })).toEqual(['query: is at most 25,000 characters']);
  });

  test('requires a query unless a workflow is run', () => {
    expect(problems(s.createTaskRequest, {})).toEqual(['query: is required (unless workflow_id is given)']);
    expect(problems(s.createTaskRequest, { query: '   ' })).toEqual(['query: must not be empty']);
    expect(problems(s.createTaskRequest, { workflow_id: 'wf', workflow_params: { company: 'ACME' } })).toEqual([]);
  });

  test('allows research_strategy plus report_format up to 15,000 characters combined', () => {
    expect(problems(s.createTaskRequest, { query: 'q', research_strategy: repeat(7_500), report_format: repeat(7_500) })).toEqual([]);
    expect(problems(s.createTaskRequest, { query: 'q', research_strategy: repeat(7_500), report_format: repeat(7_501) })).toEqual([
      'report_format: research_strategy plus report_format is 15001 characters; at most 15,000 combined',
    ]);
  });

  test('counts the deprecated strategy alias towards the combined limit', () => {
    expect(problems(s.createTaskRequest, { query: 'q', strategy: repeat(10_000), report_format: repeat(5_001) })[0]).toMatch(
      /^report_format: .*15,000 combined/,
    );
  });

  test.each<[string, (index: number) => unknown, string]>([
    ['urls', (index) => `https://example.com/${index}`, 'at most 10 URLs'],
    ['files', (index) => ({ filename: `f${index}.txt`, data: 'aGVsbG8=' }), 'at most 10 files'],
  ])('accepts 10 %s and rejects 11', (field, make, message) => {
    expect(problems(s.createTaskRequest, { query: 'q', [field]: times(10, make) })).toEqual([]);
    expect(problems(s.createTaskRequest, { query: 'q', [field]: times(11, make) })).toEqual([`${field}: ${message}`]);
  });

  test('names the bad entry of urls', () => {
    expect(problems(s.createTaskRequest, { query: 'q', urls: ['https://ok.example', 'not a url'] })).toEqual(['urls[1]: must be a URL']);
  });

  test('accepts 5 MCP servers and rejects 6', () => {
    const server = (index: number) => ({ url: `https://mcp${index}.example.com/sse` });
    expect(problems(s.createTaskRequest, { query: 'q', mcp_servers: times(5, server) })).toEqual([]);
    expect(problems(s.createTaskRequest, { query: 'q', mcp_servers: times(6, server) })).toEqual(['mcp_servers: at most 5 MCP servers']);
  });

  test('accepts 3 previous reports and rejects 4', () => {
    expect(problems(s.createTaskRequest, { query: 'q', previous_reports: ['a', 'b', 'c'] })).toEqual([]);
    expect(problems(s.createTaskRequest, { query: 'q', previous_reports: ['a', 'b', 'c', 'd'] })).toEqual(['previous_reports: at most 3 previous reports']);
  });

  test('accepts 10 deliverables and rejects 11', () => {
    expect(problems(s.createTaskRequest, { query: 'q', deliverables: times(10, (index) => `table ${index}`) })).toEqual([]);
    expect(problems(s.createTaskRequest, { query: 'q', deliverables: times(11, (index) => `table ${index}`) })).toEqual([
      'deliverables: at most 10 deliverables',
    ]);
  });

  test('limits a deliverable description to 500 characters, as a string or an object', () => {
    expect(problems(s.createTaskRequest, { query: 'q', deliverables: [repeat(500)] })).toEqual([]);
    expect(problems(s.createTaskRequest, { query: 'q', deliverables: [repeat(501)] })).toEqual([
      'deliverables[0]: a deliverable description is at most 500 characters',
    ]);
    expect(problems(s.createTaskRequest, { query: 'q', deliverables: [{ type: 'csv', description: repeat(501) }] })).toEqual([
      'deliverables[0].description: a deliverable description is at most 500 characters',
    ]);
  });

  test('rejects unknown fields', () => {
    expect(problems(s.createTaskRequest, { query: 'q', temperature: 0.2 })).toEqual(['(root): Unrecognized key: "temperature"']);
  });
});

describe('output formats', () => {
  const jsonSchema = { type: 'object', properties: { name: { type: 'string' } } };

  test.each([[['markdown']], [['markdown', 'pdf']], [['toon']], [[jsonSchema]]])('accepts %j', (formats) => {
    expect(problems(s.createTaskRequest, { query: 'q', output_formats: formats })).toEqual([]);
  });

  test.each([['markdown'], ['pdf']])('refuses a JSON Schema combined with %s', (format) => {
    expect(problems(s.createTaskRequest, { query: 'q', output_formats: [format, jsonSchema] })).toEqual([
      'output_formats: a JSON Schema object cannot be combined with markdown or pdf',
    ]);
  });

  test('refuses two JSON Schemas, an empty list and unknown names', () => {
    expect(problems(s.outputFormats, [jsonSchema, jsonSchema])).toEqual(['(root): at most one JSON Schema object']);
    expect(problems(s.outputFormats, [])).toEqual(['(root): must name at least one format']);
    expect(problems(s.outputFormats, ['docx'])).toHaveLength(1);
  });
});

describe('deprecated aliases', () => {
  test('normalises input, model, strategy and code_execution to the current fields', () => {
    const request = parsed(s.createTaskRequest, { input: 'q', model: 'fast', strategy: 'go wide', code_execution: true });
    expect(request).toEqual({ query: 'q', mode: 'fast', research_strategy: 'go wide', tools: { code_execution: true } });
  });

  test('keeps the other tools when folding code_execution in', () => {
    expect(parsed(s.createTaskRequest, { query: 'q', code_execution: false, tools: { charts: true } }).tools).toEqual({ charts: true, code_execution: false });
  });

  test('accepts an alias that repeats the current value', () => {
    expect(parsed(s.createTaskRequest, { query: 'q', input: 'q', mode: 'max', model: 'max' })).toEqual({ query: 'q', mode: 'max' });
    expect(parsed(s.createTaskRequest, { query: 'q', code_execution: true, tools: { code_execution: true } }).tools).toEqual({ code_execution: true });
  });

  test.each([
    [{ query: 'one', input: 'two' }, 'input: deprecated alias of query'],
    [{ query: 'q', mode: 'fast', model: 'max' }, 'model: deprecated alias of mode'],
    [{ query: 'q', research_strategy: 'a', strategy: 'b' }, 'strategy: deprecated alias of research_strategy'],
    [{ query: 'q', code_execution: true, tools: { code_execution: false } }, 'code_execution: deprecated alias of tools.code_execution'],
  ])('rejects conflicting values: %j', (request, message) => {
    expect(problems(s.createTaskRequest, request)).toEqual([expect.stringContaining(message)]);
  });

  test('applies the query limit to the input alias too', () => {
    expect(problems(s.createTaskRequest, { input: repeat(25_001) })).toEqual(['input: is at most 25,000 characters']);
  });
});

describe('webhook_url and alert_email', () => {
  test.each([
    'https://hooks.example.com/research',
    'http://localhost:8080/hook',
    'http://127.0.0.1:3000/hook',
    'http://127.5.6.7/hook',
    'http://[::1]:9000/hook',
  ])('accepts %s', (url) => {
    expect(problems(s.createTaskRequest, { query: 'q', webhook_url: url })).toEqual([]);
  });

  test.each(['http://hooks.example.com/research', 'http://10.0.0.5/hook', 'http://localhost.example.com/hook', 'ftp://hooks.example.com/x'])(
    'refuses %s',
    (url) => {
      expect(problems(s.createTaskRequest, { query: 'q', webhook_url: url })).toEqual([
        'webhook_url: must be an HTTPS URL (plain HTTP is accepted only for a loopback address)',
      ]);
    },
  );

  test('refuses a relative webhook URL', () => {
    expect(problems(s.createTaskRequest, { query: 'q', webhook_url: '/hook' })).toEqual(['webhook_url: must be an absolute URL']);
  });

  test('accepts an address, or an object whose custom_url contains {id}', () => {
    expect(problems(s.createTaskRequest, { query: 'q', alert_email: 'ops@example.com' })).toEqual([]);
    expect(problems(s.createTaskRequest, { query: 'q', alert_email: { email: 'ops@example.com', custom_url: 'https://app.example.com/r/{id}' } })).toEqual([]);
  });

  test('refuses a custom_url without {id}', () => {
    expect(s.alertEmail.safeParse({ email: 'ops@example.com', custom_url: 'https://app.example.com/r' }).success).toBe(false);
    expect(problems(s.alertEmail.options[1], { email: 'ops@example.com', custom_url: 'https://app.example.com/r' })).toEqual(['custom_url: must contain {id}']);
  });
});

describe('searchRequest', () => {
  test('accepts a full request', () => {
    const request = {
      query: 'battery recycling capacity Europe',
      max_num_results: 20,
      search_type: 'proprietary',
      max_price: 30,
      relevance_threshold: 0.7,
      included_sources: ['academic', 'svc/svc-arxiv', 'collection:Energy'],
      excluded_sources: ['example.com'],
      source_biases: { 'nature.com': 5, 'example.com/blog': -5 },
      include_abstracts: true,
      response_length: 'large',
      start_date: '2024-01-01',
      end_date: '2024-12-31',
      country_code: 'DE',
      is_tool_call: true,
      fast_mode: false,
    };
    expect(problems(s.searchRequest, request)).toEqual([]);
  });

  test('rejects unknown properties, naming them', () => {
    expect(problems(s.searchRequest, { query: 'q', num_results: 5 })).toEqual(['(root): Unrecognized key: "num_results"']);
  });

  test.each([
    [1, true],
    [100, true],
    [0, false],
    [101, false],
    [2.5, false],
  ])('max_num_results %d allowed: %s', (value, ok) => {
    const found = problems(s.searchRequest, { query: 'q', max_num_results: value });
    if (ok) expect(found).toEqual([]);
    else expect(found).toEqual([expect.stringMatching(/^max_num_results: /)]);
  });

  test.each([
    [0, true],
    [1, true],
    [0.5, true],
    [-0.01, false],
    [1.01, false],
  ])('relevance_threshold %d allowed: %s', (value, ok) => {
    expect(problems(s.searchRequest, { query: 'q', relevance_threshold: value }).length === 0).toBe(ok);
    if (!ok) expect(problems(s.searchRequest, { query: 'q', relevance_threshold: value })[0]).toMatch(/^relevance_threshold: /);
  });

  test('max_price must be above 0', () => {
    expect(problems(s.searchRequest, { query: 'q', max_price: 0.01 })).toEqual([]);
    expect(problems(s.searchRequest, { query: 'q', max_price: 0 })).toEqual([expect.stringMatching(/^max_price: /)]);
    expect(problems(s.searchRequest, { query: 'q', max_price: -1 })).toEqual([expect.stringMatching(/^max_price: /)]);
  });

  test('source_biases are integers from -5 to 5, each named by its key', () => {
    expect(problems(s.searchRequest, { query: 'q', source_biases: { 'a.com': -5, 'b.com': 0, 'c.com': 5 } })).toEqual([]);
    expect(problems(s.searchRequest, { query: 'q', source_biases: { 'a.com': 6, 'b.com': -6, 'c.com': 1.5 } })).toEqual([
      expect.stringMatching(/^source_biases\.a\.com: /),
      expect.stringMatching(/^source_biases\.b\.com: /),
      'source_biases.c.com: must be an integer from -5 to 5',
    ]);
  });

  test.each(['2024-02-30', '2023-02-29', '2024-13-01', '2024-1-5', '20240105', '2024-01-05T25:00:00Z'])('refuses the date %s', (date) => {
    expect(problems(s.searchRequest, { query: 'q', start_date: date })).toEqual(['start_date: must be YYYY-MM-DD or an ISO 8601 date-time']);
  });

  test('accepts a full date-time bound, as the JS client sends with historical_cache', () => {
    expect(problems(s.searchRequest, { query: 'q', start_date: '2024-01-05T09:30:00Z', historical_cache: true, historical_cache_strict: 'prefer' })).toEqual(
      [],
    );
  });

  test('accepts a leap day and refuses an end before the start', () => {
    expect(problems(s.searchRequest, { query: 'q', start_date: '2024-02-29', end_date: '2024-02-29' })).toEqual([]);
    expect(problems(s.searchRequest, { query: 'q', start_date: '2024-03-01', end_date: '2024-02-29' })).toEqual(['end_date: must not be before start_date']);
  });

  test('refuses presets in excluded_sources', () => {
    expect(problems(s.searchRequest, { query: 'q', excluded_sources: ['example.com', 'finance'] })).toEqual([
      'excluded_sources[1]: presets such as "finance" are not supported in excluded_sources',
    ]);
  });
});

describe('answerRequest', () => {
  /** A JSON Schema nested `levels` objects deep (each level adds `properties` and the property's schema). */
  const nested = (levels: number): Record<string, unknown> =>
    levels === 0 ? { type: 'string' } : { type: 'object', properties: { child: nested(levels - 1) } };

  test('accepts a structured output schema within the limits', () => {
    expect(problems(s.answerRequest, { query: 'q', structured_output: nested(4) })).toEqual([]);
  });

  test('limits structured_output to 10 levels deep', () => {
    expect(s.jsonDepth(nested(4))).toBe(9);
    expect(s.jsonDepth(nested(5))).toBe(11);
    expect(problems(s.answerRequest, { query: 'q', structured_output: nested(5) })).toEqual(['structured_output: JSON Schema must be at most 10 levels deep']);
  });

  test('limits structured_output to 50 properties', () => {
    const withProperties = (count: number) => ({ type: 'object', properties: Object.fromEntries(times(count, (index) => [`p${index}`, { type: 'string' }])) });
    expect(problems(s.answerRequest, { query: 'q', structured_output: withProperties(50) })).toEqual([]);
    expect(problems(s.answerRequest, { query: 'q', structured_output: withProperties(51) })).toEqual([
      'structured_output: JSON Schema must declare at most 50 properties',
    ]);
  });

  test('limits structured_output to 5000 characters of JSON', () => {
    const sized = (length: number) => {
      const schema = { type: 'string', description: '' };
      schema.description = repeat(length - JSON.stringify(schema).length);
      return schema;
    };
    expect(JSON.stringify(sized(5000))).toHaveLength(5000);
    expect(problems(s.answerRequest, { query: 'q', structured_output: sized(5000) })).toEqual([]);
    expect(problems(s.answerRequest, { query: 'q', structured_output: sized(5001) })).toEqual([
      'structured_output: JSON Schema must be at most 5000 characters',
    ]);
  });

  test('limits system_instructions to 2000 characters and allows null', () => {
    expect(problems(s.answerRequest, { query: 'q', system_instructions: repeat(2000) })).toEqual([]);
    expect(problems(s.answerRequest, { query: 'q', system_instructions: null })).toEqual([]);
    expect(problems(s.answerRequest, { query: 'q', system_instructions: repeat(2001) })).toEqual([expect.stringMatching(/^system_instructions: /)]);
  });

  test('checks data_max_price, country codes and dates', () => {
    expect(problems(s.answerRequest, { query: 'q', data_max_price: 0 })).toEqual([expect.stringMatching(/^data_max_price: /)]);
    expect(problems(s.answerRequest, { query: 'q', country_code: 'ALL' })).toEqual([]);
    expect(problems(s.answerRequest, { query: 'q', country_code: 'XX' })).toEqual([expect.stringMatching(/^country_code: /)]);
    expect(problems(s.answerRequest, { query: 'q', end_date: '2024-02-30' })).toEqual(['end_date: must be a date in YYYY-MM-DD form']);
  });
});

describe('batches', () => {
  const task = (index: number) => ({ id: `item-${index}`, query: `question ${index}` });

  test('add-tasks takes 1 to 100 tasks', () => {
    expect(problems(s.addBatchTasksRequest, { tasks: times(1, task) })).toEqual([]);
    expect(problems(s.addBatchTasksRequest, { tasks: times(100, task) })).toEqual([]);
    expect(problems(s.addBatchTasksRequest, { tasks: [] })).toEqual(['tasks: needs at least 1 task']);
    expect(problems(s.addBatchTasksRequest, { tasks: times(101, task) })).toEqual(['tasks: at most 100 tasks per request']);
  });

  test('add-tasks refuses duplicate ids, naming the repeat', () => {
    expect(problems(s.addBatchTasksRequest, { tasks: [task(1), task(2), task(1)] })).toEqual(['tasks[2].id: duplicate task id "item-1"']);
  });

  test('add-tasks names an empty or oversized query', () => {
    expect(
      problems(s.addBatchTasksRequest, {
        tasks: [
          { id: 'a', query: ' ' },
          { id: 'b', query: repeat(25_001) },
        ],
      }),
    ).toEqual(['tasks[0].query: must not be empty', 'tasks[1].query: is at most 25,000 characters']);
  });

  test.each([
    ['hitl', { plan_review: true }, 'checkpoints (hitl)'],
    ['deliverables', ['a table'], 'deliverables'],
    ['files', [{ url: 'https://example.com/a.pdf' }], 'files'],
    ['mcp_servers', [{ url: 'https://mcp.example.com' }], 'MCP servers'],
    ['previous_reports', ['dr_1'], 'previous reports'],
  ])('batch creation refuses %s', (field, value, feature) => {
    expect(problems(s.createBatchRequest, { name: 'scan', [field]: value })).toEqual([`${field}: batch tasks cannot use ${feature}`]);
  });

  test('a task added to a batch refuses the same features', () => {
    expect(problems(s.addBatchTasksRequest, { tasks: [{ ...task(1), hitl: { plan_review: true } }] })).toEqual([
      'tasks[0].hitl: batch tasks cannot use checkpoints (hitl)',
    ]);
  });

  test('batch creation accepts shared configuration and refuses other fields', () => {
    expect(
      problems(s.createBatchRequest, { name: 'scan', mode: 'fast', output_formats: ['markdown'], webhook_url: 'https://h.example.com', metadata: { a: 1 } }),
    ).toEqual([]);
    expect(problems(s.createBatchRequest, { query: 'q' })).toEqual(['query: is not a batch field']);
  });
});

describe('checkpoint responses', () => {
  test.each([
    ['planning_questions', { answers: [{ question: 'Which region?', answer: 'EU' }] }],
    ['plan_review', { approved: true }],
    ['plan_review', { approved: false, modifications: 'add pricing' }],
    ['source_review', { included_domains: ['nature.com'], excluded_domains: [] }],
    ['outline_review', { approved: true }],
  ] as const)('%s accepts %j', (type, response) => {
    expect(problems(s.checkpointResponseSchemas[type], response)).toEqual([]);
    expect(problems(s.respondRequest, { interaction_id: 'int_1', response })).toEqual([]);
  });

  test.each([
    ['planning_questions', { answers: [] }, 'answers: needs at least one answer'],
    ['plan_review', { approved: false }, 'modifications: '],
    ['plan_review', { approved: 'yes' }, 'approved: '],
    ['outline_review', { approved: false, modifications: '  ' }, 'must say what to change'],
    ['source_review', { included_domains: ['a.com'] }, 'excluded_domains'],
  ] as const)('%s refuses %j', (type, response, named) => {
    expect(problems(s.checkpointResponseSchemas[type], response).join('; ')).toContain(named);
  });

  test('a review answer is not a valid planning answer', () => {
    expect(problems(s.checkpointResponseSchemas.planning_questions, { approved: true })).not.toEqual([]);
  });

  test('respondRequest needs an interaction id', () => {
    expect(problems(s.respondRequest, { interaction_id: '', response: { approved: true } })).toEqual([expect.stringMatching(/^interaction_id: /)]);
  });
});

describe('response schemas', () => {
  const status = {
    deepresearch_id: 'dr_123',
    status: 'awaiting_input',
    query: 'q',
    mode: 'standard',
    created_at: '2025-01-01T00:00:00Z',
    progress: { current_step: 3, total_steps: 15 },
    interaction: { interaction_id: 'int_1', type: 'plan_review', data: { plan: '...' }, created_at: 1735689600000, timeout_ms: 300000 },
    future_field: 'kept',
  };

  test('a valid status response parses and keeps fields the spec does not list', () => {
    expect(parsed(s.task, status)).toEqual(status);
  });

  test('a response without status fails naming status', () => {
    const { status: _status, ...missing } = status;
    expect(problems(s.task, missing)).toEqual([expect.stringMatching(/^status: /)]);
  });

  test('an unknown status fails naming status', () => {
    expect(problems(s.task, { ...status, status: 'thinking' })).toEqual([expect.stringMatching(/^status: Invalid option/)]);
  });

  test('a wrong type deep inside names the full path', () => {
    expect(problems(s.task, { ...status, progress: { current_step: 'three', total_steps: 15 } })).toEqual([expect.stringMatching(/^progress\.current_step: /)]);
  });

  test('createBatchResponse unwraps {success, batch} and names a bad field in either form', () => {
    const batch = { batch_id: 'batch_1', status: 'open', counts: { total: 0, queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 } };
    expect(parsed(s.createBatchResponse, { success: true, batch })).toEqual(batch);
    expect(parsed(s.createBatchResponse, batch)).toEqual(batch);
    expect(problems(s.createBatchResponse, { ...batch, status: 'sleeping' })).toEqual([expect.stringMatching(/^status: /)]);
    expect(problems(s.createBatchResponse, { success: true, batch: { ...batch, counts: undefined } })).toEqual([expect.stringMatching(/^counts: /)]);
  });

  test('createTaskResponse only allows running or queued', () => {
    const created = { deepresearch_id: 'dr_1', status: 'running', mode: 'fast', created_at: '2025-01-01T00:00:00Z' };
    expect(problems(s.createTaskResponse, created)).toEqual([]);
    expect(problems(s.createTaskResponse, { ...created, status: 'completed' })).toEqual([expect.stringMatching(/^status: /)]);
  });
});
