import { temporal } from '@temporalio/proto';
import { ensureSearchAttributes, registerSearchAttributes, searchAttributeCommands } from '../src/register-search-attributes';

const { IndexedValueType } = temporal.api.enums.v1;

function fakeOperator(existing: Record<string, temporal.api.enums.v1.IndexedValueType>) {
  const added: Array<Record<string, temporal.api.enums.v1.IndexedValueType>> = [];
  return {
    added,
    connection: {
      operatorService: {
        listSearchAttributes: async () => ({ customAttributes: existing }),
        addSearchAttributes: async (request: { searchAttributes: Record<string, temporal.api.enums.v1.IndexedValueType> }) => {
          added.push({ ...request.searchAttributes });
          return {};
        },
      },
    },
  };
}

describe('registerSearchAttributes', () => {
  it('adds only the attributes the namespace lacks, with their types', async () => {
    const operator = fakeOperator({ ResearchStatus: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD });
    await expect(registerSearchAttributes(operator.connection, 'default')).resolves.toEqual([
      'ResearchMode',
      'DeepResearchId',
      'ResearchPipeline',
      'ResearchCostUsd',
    ]);
    expect(operator.added).toEqual([
      {
        ResearchMode: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
        DeepResearchId: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
        ResearchPipeline: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
        ResearchCostUsd: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
      },
    ]);
  });

  it('adds nothing when all are there', async () => {
    const all = Object.fromEntries(
      ['ResearchStatus', 'ResearchMode', 'DeepResearchId', 'ResearchPipeline', 'ResearchCostUsd'].map((name) => [
        name,
        IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      ]),
    );
    const operator = fakeOperator(all);
    await expect(registerSearchAttributes(operator.connection, 'default')).resolves.toEqual([]);
    expect(operator.added).toEqual([]);
  });

  it('says how to register them by hand when the operator API refuses', async () => {
    const lines: string[] = [];
    const refusing = {
      operatorService: {
        listSearchAttributes: async () => {
          throw new Error('PermissionDenied');
        },
        addSearchAttributes: async () => {
          throw new Error('unreachable');
        },
      },
    };
    await ensureSearchAttributes(refusing, 'prod', (line) => lines.push(line));
    expect(lines[0]).toContain('could not check or register the search attributes (PermissionDenied)');
    expect(lines[0]).toContain('temporal operator search-attribute create --namespace prod --name ResearchCostUsd --type Double');
  });

  it('writes one CLI command per attribute', () => {
    expect(searchAttributeCommands('default').split('\n')).toHaveLength(5);
  });
});
