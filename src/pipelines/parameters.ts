import { allowedBy, parameterTypeProblem, type ParameterSpec, type ParameterType, type ParameterValue } from './parameter-schema';

/** Parameter values that do not fit the definition; the message names every parameter and its rule. */
export class ParameterError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'ParameterError';
  }
}

/** Splits `--set name=value` arguments; a repeated name keeps the last value, as shells users expect. */
export function parseSetArguments(pairs: readonly string[]): Record<string, string> {
  // A Map then fromEntries: `__proto__=x` becomes an own entry (named as unknown later), not a prototype change.
  const values = new Map<string, string>();
  const problems: string[] = [];
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals <= 0) problems.push(`--set ${pair}: expected name=value`);
    else values.set(pair.slice(0, equals).trim(), pair.slice(equals + 1));
  }
  if (problems.length > 0) throw new ParameterError(problems);
  return Object.fromEntries(values);
}

/** Converts command-line text to a parameter's type (`"3"` to 3 for an integer), leaving bad text as text for the check to name. */
function fromText(type: ParameterType, text: string): ParameterValue {
  switch (type) {
    case 'number':
    case 'integer':
      return /^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text.trim()) ? Number(text) : text;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'list':
      // A JSON array, or comma-separated text (--set tags=a,b).
      return text.trim().startsWith('[')
        ? (parsedJson(text) ?? text)
        : text
            .split(',')
            .map((part) => part.trim())
            .filter(Boolean);
    case 'object':
      return parsedJson(text) ?? text;
    default:
      return text;
  }
}

/** JSON text as a parameter value, or undefined when it is not JSON. */
function parsedJson(text: string): ParameterValue | undefined {
  try {
    return JSON.parse(text) as ParameterValue;
  } catch {
    return undefined;
  }
}

const shown = (value: ParameterValue): string => {
  const text = typeof value === 'string' ? `"${value}"` : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

/**
 * The values of every declared parameter for one run: an override, else the default. Overrides given
 * as text (the command line) are converted to the parameter's type. Throws `ParameterError` naming
 * unknown parameters, values of the wrong type or outside the options, and required ones left unset.
 */
export function resolveParameters(
  specs: Readonly<Record<string, ParameterSpec>>,
  overrides: Readonly<Record<string, ParameterValue>> = {},
  options: { textValues?: boolean; missingHint?: (name: string) => string } = {},
): Record<string, ParameterValue> {
  const problems: string[] = [];
  const declared = Object.keys(specs);
  for (const name of Object.keys(overrides)) {
    // Own properties only: `toString` or `constructor` is not a declared parameter.
    if (!Object.hasOwn(specs, name)) problems.push(`unknown parameter "${name}" (parameters: ${declared.join(', ') || 'none'})`);
  }
  const values: Record<string, ParameterValue> = Object.create(null) as Record<string, ParameterValue>;
  for (const [name, spec] of Object.entries(specs)) {
    const given = Object.hasOwn(overrides, name) ? overrides[name] : undefined;
    const value = given !== undefined && options.textValues && typeof given === 'string' ? fromText(spec.type, given) : (given ?? spec.default);
    if (value === undefined) {
      problems.push(`parameter ${name}: is required (no default; ${options.missingHint ? options.missingHint(name) : `give --set ${name}=...`})`);
      continue;
    }
    const problem = parameterTypeProblem(spec.type, value);
    if (problem) problems.push(`parameter ${name}: ${problem} (got ${shown(value)})`);
    else if (spec.options && !allowedBy(spec.options, value))
      problems.push(`parameter ${name}: must be one of ${spec.options.join(', ')} (got ${shown(value)})`);
    else values[name] = value;
  }
  if (problems.length > 0) throw new ParameterError(problems);
  return values;
}
