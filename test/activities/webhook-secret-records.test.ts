import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import {
  EncryptedWebhookSecretStore,
  FileWebhookSecretStore,
  openArtifactStore,
  openWebhookSecretStore,
  WebhookSecretRecordError,
  type ArtifactStore,
} from '../../src/activities';

const INTAKE_KEY = randomBytes(32).toString('hex');
const SECRET = `whsec_${randomBytes(24).toString('hex')}`;

let dir: string;
let store: ArtifactStore;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rp-secret-records-'));
  store = await openArtifactStore({ kind: 'local', dir });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Every byte the store holds, as text. */
async function everythingStored(): Promise<string> {
  const texts = await Promise.all((await store.list('')).map(async (ref) => Buffer.from(await store.get(ref.key)).toString('utf8')));
  return texts.join('\n');
}

/** The error `promise` rejects with. */
async function failureOf(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('EncryptedWebhookSecretStore over the artifact store', () => {
  test('round trip: a second store with the same INTAKE_KEY (the intake) reads what the first (the worker) kept', async () => {
    await new EncryptedWebhookSecretStore(store, INTAKE_KEY).put('dr_1', SECRET);
    const intake = new EncryptedWebhookSecretStore(await openArtifactStore({ kind: 'local', dir }), INTAKE_KEY);
    expect(await intake.get('dr_1')).toBe(SECRET);
    expect((await store.list('')).map((ref) => ref.key)).toEqual(['webhook-secrets/dr_1.json']);
  });

  test('the store never holds the secret (nor INTAKE_KEY) in plaintext, and two records of one secret differ', async () => {
    const secrets = new EncryptedWebhookSecretStore(store, INTAKE_KEY);
    await secrets.put('dr_1', SECRET);
    await secrets.put('dr_2', SECRET);
    const stored = await everythingStored();
    expect(stored).not.toContain(SECRET);
    expect(stored).not.toContain(Buffer.from(SECRET).toString('base64'));
    expect(stored).not.toContain(INTAKE_KEY);
    const [one, two] = stored.split('\n').map((text) => JSON.parse(text) as { data: string; iv: string });
    expect(one!.iv).not.toBe(two!.iv);
    expect(one!.data).not.toBe(two!.data);
  });

  test('a missing secret is undefined', async () => {
    expect(await new EncryptedWebhookSecretStore(store, INTAKE_KEY).get('dr_never')).toBeUndefined();
  });

  test('another INTAKE_KEY gets a clear error naming the id and the key, never the secret', async () => {
    await new EncryptedWebhookSecretStore(store, INTAKE_KEY).put('dr_1', SECRET);
    const error = await failureOf(new EncryptedWebhookSecretStore(store, randomBytes(32).toString('hex')).get('dr_1'));
    expect(error).toBeInstanceOf(WebhookSecretRecordError);
    expect(error.message).toMatch(/"dr_1".*INTAKE_KEY/);
    expect(error.message + inspect(error)).not.toContain(SECRET);
  });

  test('a changed record, or one copied to another id, is refused', async () => {
    const secrets = new EncryptedWebhookSecretStore(store, INTAKE_KEY);
    await secrets.put('dr_1', SECRET);
    const record = JSON.parse(Buffer.from(await store.get('webhook-secrets/dr_1.json')).toString('utf8')) as Record<string, string>;
    const data = Buffer.from(record.data!, 'base64');
    data[0] = data[0]! ^ 1;
    await store.put('webhook-secrets/dr_1.json', JSON.stringify({ ...record, data: data.toString('base64') }), 'application/json');
    expect(await failureOf(secrets.get('dr_1'))).toBeInstanceOf(WebhookSecretRecordError);
    // Intact bytes under another id: the id is associated data, so the record does not open there.
    await store.put('webhook-secrets/dr_2.json', JSON.stringify(record), 'application/json');
    expect((await failureOf(secrets.get('dr_2'))).message).toContain('"dr_2"');
    await store.put('webhook-secrets/dr_3.json', 'not json', 'application/json');
    expect((await failureOf(secrets.get('dr_3'))).message).toBe('webhook secret of "dr_3" cannot be read: the record is not JSON');
  });

  test('delete forgets the secret (idempotent), leaving no secret in the store', async () => {
    const secrets = new EncryptedWebhookSecretStore(store, INTAKE_KEY);
    await secrets.put('dr_1', SECRET);
    await secrets.delete('dr_1');
    await secrets.delete('dr_1');
    await secrets.delete('dr_never');
    expect(await secrets.get('dr_1')).toBeUndefined();
    expect(await secrets.get('dr_never')).toBeUndefined();
    expect(await everythingStored()).not.toMatch(/"data"/);
  });

  test('a store that can delete has the record deleted, not overwritten', async () => {
    const deleted: string[] = [];
    const deleting = {
      put: store.put.bind(store),
      get: store.get.bind(store),
      stat: store.stat.bind(store),
      delete: async (key: string) => void deleted.push(key),
    };
    const secrets = new EncryptedWebhookSecretStore(deleting, INTAKE_KEY);
    await secrets.put('dr_1', SECRET);
    await secrets.delete('dr_1');
    expect(deleted).toEqual(['webhook-secrets/dr_1.json']);
  });

  test('an id that is not a plain token is hashed into one key under webhook-secrets/', async () => {
    const secrets = new EncryptedWebhookSecretStore(store, INTAKE_KEY);
    await secrets.put('../../escape', SECRET);
    expect(await secrets.get('../../escape')).toBe(SECRET);
    expect((await store.list('')).map((ref) => ref.key)).toEqual([expect.stringMatching(/^webhook-secrets\/sha256-[0-9a-f]{64}\.json$/)]);
    expect(await readdir(dir)).toEqual(expect.arrayContaining(['webhook-secrets']));
  });

  test('printing the store shows neither INTAKE_KEY nor the derived key', () => {
    const secrets = new EncryptedWebhookSecretStore(store, INTAKE_KEY);
    expect(inspect(secrets, { showHidden: true, depth: 5 }) + JSON.stringify(secrets)).not.toContain(INTAKE_KEY);
  });
});

describe('openWebhookSecretStore', () => {
  test('with WEBHOOK_SECRET_DIR still set, secrets an earlier version wrote there are read; new ones go to the store; delete clears both', async () => {
    const legacyDir = path.join(dir, 'old-secrets');
    await new FileWebhookSecretStore(legacyDir).put('dr_old', SECRET);
    const secrets = openWebhookSecretStore({ store, intakeKey: INTAKE_KEY, legacyDir });
    expect(await secrets.get('dr_old')).toBe(SECRET);
    await secrets.put('dr_new', SECRET);
    expect(await readdir(legacyDir)).toEqual(['dr_old.secret']);
    expect(await new EncryptedWebhookSecretStore(store, INTAKE_KEY).get('dr_new')).toBe(SECRET);
    await secrets.delete('dr_old');
    expect(await readdir(legacyDir)).toEqual([]);
    expect(await secrets.get('dr_old')).toBeUndefined();
  });

  test('the store answers before the legacy directory', async () => {
    const legacyDir = path.join(dir, 'old-secrets');
    await new FileWebhookSecretStore(legacyDir).put('dr_1', 'stale');
    const secrets = openWebhookSecretStore({ store, intakeKey: INTAKE_KEY, legacyDir });
    await secrets.put('dr_1', SECRET);
    expect(await secrets.get('dr_1')).toBe(SECRET);
  });
});
