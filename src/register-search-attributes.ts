import type { SearchAttributeType } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { encodeSearchAttributeIndexedValueType } from '@temporalio/common/lib/search-attributes';
import { RESEARCH_SEARCH_ATTRIBUTES } from './workflows/search-attributes';

/** The part of a Temporal connection (client or native) that lists and adds search attributes. */
export interface SearchAttributeOperator {
  operatorService: {
    listSearchAttributes(request: { namespace: string }): Promise<{ customAttributes?: Record<string, temporal.api.enums.v1.IndexedValueType> | null }>;
    addSearchAttributes(request: { namespace: string; searchAttributes: Record<string, temporal.api.enums.v1.IndexedValueType> }): Promise<unknown>;
  };
}

/** Custom search attributes by name and type. */
export type SearchAttributeDeclarations = Readonly<Record<string, SearchAttributeType>>;

/**
 * Registers the custom search attributes a namespace lacks (workflows that upsert an unregistered one
 * fail their tasks); returns the names it added. Needs the operator API, which some deployments refuse.
 */
export async function registerSearchAttributes(
  connection: SearchAttributeOperator,
  namespace: string,
  wanted: SearchAttributeDeclarations = RESEARCH_SEARCH_ATTRIBUTES,
): Promise<string[]> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = Object.entries(wanted).filter(([name]) => !(name in (customAttributes ?? {})));
  if (missing.length === 0) return [];
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.map(([name, type]) => {
        const encoded = encodeSearchAttributeIndexedValueType(type);
        if (encoded === undefined) throw new Error(`unknown search attribute type ${type} for ${name}`);
        return [name, encoded];
      }),
    ),
  });
  return missing.map(([name]) => name);
}

/** The `temporal` CLI commands that register the search attributes by hand. */
export function searchAttributeCommands(namespace: string, wanted: SearchAttributeDeclarations = RESEARCH_SEARCH_ATTRIBUTES): string {
  const label = (type: SearchAttributeType): string => type.charAt(0) + type.slice(1).toLowerCase();
  return Object.entries(wanted)
    .map(([name, type]) => `temporal operator search-attribute create --namespace ${namespace} --name ${name} --type ${label(type)}`)
    .join('\n');
}

/** Registers what is missing, or says how to do it by hand; never stops the caller. */
export async function ensureSearchAttributes(connection: SearchAttributeOperator, namespace: string, log: (line: string) => void): Promise<void> {
  try {
    const added = await registerSearchAttributes(connection, namespace);
    if (added.length > 0) log(`registered search attributes on namespace ${namespace}: ${added.join(', ')}`);
  } catch (error) {
    log(
      `could not check or register the search attributes (${error instanceof Error ? error.message : String(error)}); register them once with:\n${searchAttributeCommands(namespace)}`,
    );
  }
}
