/** Keeps the last `limit` entries of a list that grows with the run. */
export function keepLast<T>(list: T[], entry: T, limit = 20): T[] {
  const next = [...list, entry];
  return next.length > limit ? next.slice(next.length - limit) : next;
}
