import { isRecord } from '../shared/guards';

/** A JSON Schema node. */
export type Schema = Record<string, unknown>;

/** True for a JSON Schema node (an object, not an array). */
export const isSchema: (value: unknown) => value is Schema = isRecord;

/** Where generated values come from: each caller decides how its strings, numbers and choices read. */
export interface SchemaValues {
  string(schema: Schema, name: string): string;
  number(schema: Schema, integer: boolean): number;
  boolean(): boolean;
  choose(options: readonly unknown[]): unknown;
  arrayLength(min: number | undefined, max: number | undefined): number;
  itemName(name: string, index: number): string;
  /** The value of an object schema that declares no properties. */
  emptyObject(): Record<string, unknown>;
}

/**
 * Generates a value matching a JSON Schema: `$ref` into `$defs`/`definitions`, `const`, `enum`,
 * `anyOf`/`oneOf` by their first non-null branch, `allOf` merged, objects, arrays and scalars by type.
 * The one walker behind every emulator route that returns structured output.
 */
export function walkSchema(root: Schema, values: SchemaValues, maxDepth: number): unknown {
  const generate = (schema: Schema, name: string, depth: number): unknown => {
    if (depth > maxDepth) return null;
    if (typeof schema.$ref === 'string') {
      const target = resolveRef(schema.$ref, root);
      return target ? generate(target, name, depth + 1) : null;
    }
    if ('const' in schema) return schema.const;
    if (Array.isArray(schema.enum) && schema.enum.length > 0) return values.choose(schema.enum);
    const options: unknown[] | undefined = [schema.anyOf, schema.oneOf, schema.allOf].find(Array.isArray);
    if (options) {
      const first = options.find((option) => isSchema(option) && option.type !== 'null');
      if (isSchema(first))
        return generate(
          { ...first, ...(schema.allOf ? options.filter(isSchema).reduce<Schema>((merged, option) => ({ ...merged, ...option }), {}) : {}) },
          name,
          depth + 1,
        );
    }
    const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
    const type =
      types.find((entry) => entry !== undefined && entry !== 'null') ??
      (isSchema(schema.properties) ? 'object' : schema.items !== undefined ? 'array' : types[0]);
    switch (type) {
      case 'object': {
        const properties = isSchema(schema.properties) ? schema.properties : {};
        if (Object.keys(properties).length === 0) return values.emptyObject();
        return Object.fromEntries(Object.entries(properties).map(([key, child]) => [key, isSchema(child) ? generate(child, key, depth + 1) : null]));
      }
      case 'array': {
        const items = isSchema(schema.items) ? schema.items : { type: 'string' };
        const count = values.arrayLength(numberOr(schema.minItems), numberOr(schema.maxItems));
        return Array.from({ length: count }, (_, index) => generate(items, values.itemName(name, index), depth + 1));
      }
      case 'integer':
      case 'number':
        return values.number(schema, type === 'integer');
      case 'boolean':
        return values.boolean();
      case 'null':
        return null;
      default:
        return values.string(schema, name);
    }
  };
  return generate(root, 'result', 0);
}

function resolveRef(ref: string, root: Schema): Schema | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const group = match ? root[match[1]!] : undefined;
  const found = match && isSchema(group) ? group[match[2]!] : undefined;
  return isSchema(found) ? found : undefined;
}

function numberOr(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}
