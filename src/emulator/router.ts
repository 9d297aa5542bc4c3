import type { EmulatorRoute } from './types';

/** The outcome of matching a request against the route table. */
export type RouteMatch<R extends Pick<EmulatorRoute, 'method' | 'pattern'>> =
  | { kind: 'found'; route: R; params: Record<string, string> }
  | { kind: 'methodNotAllowed'; allowed: string[] }
  | { kind: 'notFound' }
  | { kind: 'badPath' };

interface Compiled<R> {
  route: R;
  segments: string[];
  literals: number;
}

const split = (path: string): string[] => path.split('/').filter((segment) => segment.length > 0);

/** A small matcher over `:name` patterns; a literal segment beats a parameter (`/categories` before `/:id`). */
export class Router<R extends Pick<EmulatorRoute, 'method' | 'pattern'>> {
  private readonly compiled: Compiled<R>[];

  constructor(routes: readonly R[]) {
    this.compiled = routes.map((route) => {
      const segments = split(route.pattern);
      return { route, segments, literals: segments.filter((segment) => !segment.startsWith(':')).length };
    });
    // Most literal segments first, so the first match is the most specific.
    this.compiled.sort((a, b) => b.literals - a.literals);
  }

  /** Finds the route for `method` and `path` (without query string). */
  match(method: string, path: string): RouteMatch<R> {
    const rawSegments = split(path);
    let segments: string[];
    try {
      segments = rawSegments.map((segment) => decodeURIComponent(segment));
    } catch {
      return { kind: 'badPath' };
    }
    const allowed = new Set<string>();
    for (const candidate of this.compiled) {
      const params = matchSegments(candidate.segments, segments);
      if (!params) continue;
      if (candidate.route.method === method) return { kind: 'found', route: candidate.route, params };
      allowed.add(candidate.route.method);
    }
    return allowed.size > 0 ? { kind: 'methodNotAllowed', allowed: [...allowed].sort() } : { kind: 'notFound' };
  }
}

function matchSegments(pattern: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let index = 0; index < pattern.length; index++) {
    const expected = pattern[index] ?? '';
    const actual = segments[index] ?? '';
    if (expected.startsWith(':')) params[expected.slice(1)] = actual;
    else if (expected !== actual) return undefined;
  }
  return params;
}
