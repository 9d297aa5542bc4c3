import { parsePipelineDefinition, renderItemRequest } from '../../src/pipelines';
import type { RunContext } from '../../src/pipelines';

// Input values are data: a template written into an input row must be sent as written, never evaluated
// (a row could otherwise read the run's parameters, or any other item field, into a request).
describe('service workflow parameters are rendered once', () => {
  const context: RunContext = { params: { secret_region: 'internal-eu-7' }, pipeline: { name: 'p' }, run: { key: 'r', date: '2026-11-25' } };
  const definition = parsePipelineDefinition(
    `
name: p
parameters:
  secret_region: { type: string, default: internal-eu-7 }
input:
  items: [{ company: Acme }]
  key: "{{ item.company | slug }}"
step:
  workflow:
    workflow_id: competitor-scan
    params:
      company: "{{ item.company }}"
      note: "about {{ item.company }}"
budget_usd: 5
`,
    'p.yaml',
  ).definition;

  it.each([
    ['a parameter template', '{{ params.secret_region }}'],
    ['a template reading another field', '{{ item.hidden }}'],
    ['a template with a filter', '{{ run.key | upper }}'],
  ])('sends %s in an input value as written', (_what, text) => {
    const request = renderItemRequest(
      definition,
      { key: 'acme', index: 0, where: 'item 1', value: { company: text, hidden: 'not for this request' } },
      context,
    );
    expect(request.kind).toBe('workflow');
    if (request.kind !== 'workflow') return;
    expect(request.preview.params).toEqual({ company: text, note: `about ${text}` });
    expect(request.request.workflow_params).toEqual({ company: text, note: `about ${text}` });
  });
});
