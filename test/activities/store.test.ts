import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { ArtifactKeyError, FileWebhookSecretStore, InMemoryWebhookSecretStore, LocalArtifactStore } from '../../src/activities';

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rp-store-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('LocalArtifactStore', () => {
  test('put returns a file:// reference with size, hash and type, and get reads it back', async () => {
    const store = new LocalArtifactStore(dir);
    const ref = await store.put('runs/1/report.md', '# Ünïcode report\n', 'text/markdown; charset=utf-8');
    expect(ref).toEqual({
      key: 'runs/1/report.md',
      uri: `file://${path.join(dir, 'runs', '1', 'report.md')}`,
      bytes: Buffer.byteLength('# Ünïcode report\n'),
      sha256: sha256('# Ünïcode report\n'),
      contentType: 'text/markdown; charset=utf-8',
    });
    expect(Buffer.from(await store.get('runs/1/report.md')).toString('utf8')).toBe('# Ünïcode report\n');
  });

  test('hashes a stream while writing it', async () => {
    const store = new LocalArtifactStore(dir);
    async function* chunks() {
      for (let index = 0; index < 50; index++) yield new Uint8Array(1024).fill(index);
    }
    const ref = await store.put('big.bin', chunks(), 'application/octet-stream');
    const whole = await store.get('big.bin');
    expect(ref).toMatchObject({ bytes: 50 * 1024, sha256: sha256(whole) });
  });

  test('replaces content atomically and leaves no temp files behind', async () => {
    const store = new LocalArtifactStore(dir);
    await store.put('a/b.txt', 'one', 'text/plain');
    await store.put('a/b.txt', 'two', 'text/plain');
    expect(await readdir(path.join(dir, 'a'))).toEqual(['b.txt']);
    expect((await store.stat('a/b.txt'))?.sha256).toBe(sha256('two'));
  });

  test('a failing stream leaves neither the file nor a temp file', async () => {
    const store = new LocalArtifactStore(dir);
    async function* broken() {
      yield new Uint8Array([1, 2, 3]);
      throw new Error('download interrupted');
    }
    await expect(store.put('x/partial.bin', broken(), 'application/octet-stream')).rejects.toThrow('download interrupted');
    expect(await readdir(path.join(dir, 'x'))).toEqual([]);
    expect(await store.stat('x/partial.bin')).toBeUndefined();
  });

  test.each([['../escape.txt'], ['a/../../escape.txt'], ['/etc/passwd'], ['C:/windows/win.ini'], ['a\\..\\b'], ['a//b'], ['./a'], ['.meta/a.json'], ['']])(
    'rejects the key %j',
    async (key) => {
      const store = new LocalArtifactStore(dir);
      await expect(store.put(key, 'x', 'text/plain')).rejects.toBeInstanceOf(ArtifactKeyError);
      await expect(store.stat(key)).rejects.toBeInstanceOf(ArtifactKeyError);
      await expect(store.get(key)).rejects.toBeInstanceOf(ArtifactKeyError);
    },
  );

  test('stat of a missing key is undefined', async () => {
    expect(await new LocalArtifactStore(dir).stat('nothing/here.md')).toBeUndefined();
  });

  test('stat without a sidecar recomputes the hash and takes the type from the extension', async () => {
    const store = new LocalArtifactStore(dir);
    await writeFile(path.join(dir, 'table.csv'), 'a,b\n');
    expect(await store.stat('table.csv')).toMatchObject({ bytes: 4, sha256: sha256('a,b\n'), contentType: 'text/csv' });
  });

  test('list returns the artifacts under a prefix, sorted, without sidecars', async () => {
    const store = new LocalArtifactStore(dir);
    await store.put('r/2/b.md', 'b', 'text/markdown');
    await store.put('r/1/a.md', 'a', 'text/markdown');
    await store.put('other/c.md', 'c', 'text/markdown');
    expect((await store.list('r')).map((ref) => ref.key)).toEqual(['r/1/a.md', 'r/2/b.md']);
    expect((await store.list('')).map((ref) => ref.key)).toEqual(['other/c.md', 'r/1/a.md', 'r/2/b.md']);
  });

  test('a put into a folder removed since the last put makes it again', async () => {
    const store = new LocalArtifactStore(dir);
    // A type the name does not give keeps a sidecar, whose folder is made again too.
    await store.put('run/items/a.json', '{}', 'text/plain');
    await rm(path.join(dir, 'run'), { recursive: true });
    await rm(path.join(dir, '.meta'), { recursive: true });
    const ref = await store.put('run/items/b.json', '{"b":1}', 'text/plain');
    expect(ref).toMatchObject({ key: 'run/items/b.json', bytes: 7, contentType: 'text/plain' });
    expect(Buffer.from(await store.get('run/items/b.json')).toString('utf8')).toBe('{"b":1}');
    expect(await store.stat('run/items/b.json')).toEqual(ref);
  });

  test('a small file of the type its name gives is described by stat without a sidecar, and replaces an older sidecar', async () => {
    const store = new LocalArtifactStore(dir);
    await store.put('run/results/a.json', 'x'.repeat(100_000), 'application/json');
    const ref = await store.put('run/results/a.json', '{"a":1}', 'application/json');
    expect(ref).toEqual({ key: 'run/results/a.json', uri: ref.uri, bytes: 7, sha256: sha256('{"a":1}'), contentType: 'application/json' });
    await expect(stat(path.join(dir, '.meta', 'run', 'results', 'a.json.json'))).rejects.toThrow(/ENOENT/);
    expect(await store.stat('run/results/a.json')).toEqual(ref);
    expect((await store.list('run')).map((listed) => listed.sha256)).toEqual([sha256('{"a":1}')]);
  });

  test('a sidecar another store wrote after this one found none does not describe the file this one writes next', async () => {
    const mine = new LocalArtifactStore(dir);
    await mine.put('run/results/a.json', '{"a":1}', 'application/json');
    // Another worker on the same folder writes the key with a type its name does not give (so with a sidecar) ...
    await new LocalArtifactStore(dir).put('run/results/a.json', '{"a":9}', 'text/plain');
    // ... then this store, which found no sidecar folder, writes a small one again.
    const ref = await mine.put('run/results/a.json', '{"a":2}', 'application/json');
    expect(ref).toMatchObject({ bytes: 7, sha256: sha256('{"a":2}') });
    expect(await new LocalArtifactStore(dir).stat('run/results/a.json')).toEqual(ref);
    expect(Buffer.from(await mine.get('run/results/a.json')).toString('utf8')).toBe('{"a":2}');
  });
});

describe('webhook secret stores', () => {
  const secret = '0123456789abcdef'.repeat(4);

  test('the file store writes each secret with mode 0600 and reads it back', async () => {
    const secrets = new FileWebhookSecretStore(path.join(dir, 'secrets'));
    await secrets.put('dr_1', secret);
    expect(await secrets.get('dr_1')).toBe(secret);
    expect((await stat(path.join(dir, 'secrets', 'dr_1.secret'))).mode & 0o777).toBe(0o600);
    expect((await stat(path.join(dir, 'secrets'))).mode & 0o777).toBe(0o700);
    await secrets.delete('dr_1');
    expect(await secrets.get('dr_1')).toBeUndefined();
  });

  test('the file store never lets an id name another path', async () => {
    const secrets = new FileWebhookSecretStore(path.join(dir, 'secrets'));
    await secrets.put('../../escape', secret);
    expect(await readdir(dir)).toEqual(['secrets']);
    expect(await secrets.get('../../escape')).toBe(secret);
  });

  test('the in-memory store keeps secrets and never shows them', async () => {
    const secrets = new InMemoryWebhookSecretStore();
    await secrets.put('batch_1', secret);
    expect(await secrets.get('batch_1')).toBe(secret);
    expect(inspect(secrets) + JSON.stringify(secrets)).not.toContain(secret);
  });
});
