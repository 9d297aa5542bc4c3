// Summarises V8 CPU profiles (`node --cpu-prof --cpu-prof-dir=DIR …`, one file per thread): self time
// by where the code lives (the project's folders, each package, Node's internals, GC, idle) and the
// functions that used the most, so a profile can be read without a browser.
// Usage: node bench/run.js bench/profile-summary.ts DIR [top functions, default 25]
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { positionalArgs, runIfEntry } from './table';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Where a frame's code lives: a project folder, a package, Node itself, or V8's own entries. */
export function areaOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  if (url.startsWith('node:')) return 'node internals';
  const src = url.indexOf('/src/');
  if (src >= 0) return `src/${url.slice(src + 5).split('/')[0]}`;
  if (url.includes('/bench/')) return 'bench';
  // The workflow bundle's code runs from a virtual file (webpack's module ids).
  if (url.includes('webpack') || url.includes('workflow-bundle')) return 'workflow bundle';
  return url.length > 60 ? `…${url.slice(-60)}` : url;
}

function summarise(file: string, top: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  const total = [...self.values()].reduce((sum, value) => sum + value, 0);
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, micros] of self) {
    const { callFrame } = byId.get(id)!;
    const area = areaOf(callFrame.url, callFrame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + micros);
    const name = `${callFrame.functionName || '(anonymous)'} ${area}${callFrame.url ? `:${path.basename(callFrame.url)}:${callFrame.lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + micros);
  }
  const busy = total - (areas.get('(idle)') ?? 0);
  const line = (name: string, micros: number) =>
    `  ${(micros / 1000).toFixed(0).padStart(7)} ms  ${((micros / Math.max(1, busy)) * 100).toFixed(1).padStart(5)}%  ${name}`;
  const sorted = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]);
  return [
    `${path.basename(file)}: ${(total / 1000).toFixed(0)} ms sampled, ${(busy / 1000).toFixed(0)} ms busy (shares are of busy time)`,
    ' by area (self time):',
    ...sorted(areas)
      .filter(([name, micros]) => name !== '(idle)' && micros / Math.max(1, busy) >= 0.005)
      .map(([name, micros]) => line(name, micros)),
    ` top ${top} functions (self time):`,
    ...sorted(functions)
      .filter(([name]) => !name.startsWith('(idle)'))
      .slice(0, top)
      .map(([name, micros]) => line(name, micros)),
  ].join('\n');
}

runIfEntry(module, () => {
  const [dir, topText] = positionalArgs();
  if (!dir) throw new Error('usage: node bench/run.js bench/profile-summary.ts DIR [top]');
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .sort();
  for (const name of files) process.stdout.write(`${summarise(path.join(dir, name), Number(topText ?? 25))}\n\n`);
  return Promise.resolve();
});
