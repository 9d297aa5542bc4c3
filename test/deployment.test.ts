import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { projectBinaries } from '../src/temporal/binaries';

// The deployment files checked without a container engine: the Compose Specification's JSON Schema
// (vendored) always, Docker Compose's own `config` check too when `docker-compose` is on PATH.
const root = path.resolve(__dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const composeText = read('docker-compose.yml');
const compose = parse(composeText, { merge: true }) as { services: Record<string, Service>; volumes?: Record<string, unknown> };
const envExample = Object.fromEntries(
  read('.env.example')
    .split('\n')
    .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
    .map((line) => {
      const at = line.indexOf('=');
      return [line.slice(0, at), line.slice(at + 1)];
    }),
);

interface Service {
  image?: string;
  profiles?: string[];
  restart?: string;
  healthcheck?: { test: unknown };
  depends_on?: Record<string, { condition: string }> | string[];
  command?: unknown;
  environment?: Record<string, string>;
  volumes?: string[];
  deploy?: { replicas?: number };
}

const services = Object.entries(compose.services);
// One-shot jobs: others wait for them to exit successfully, and they are not restarted once done.
const oneShots = new Set(
  services.flatMap(([, service]) =>
    Object.entries(Array.isArray(service.depends_on) ? {} : (service.depends_on ?? {}))
      .filter(([, dependency]) => dependency.condition === 'service_completed_successfully')
      .map(([name]) => name),
  ),
);

describe('docker-compose.yml', () => {
  test('is valid against the Compose Specification schema', () => {
    // The schema is draft-07, Ajv's own draft; its `$schema` URL lacks the `#` Ajv registers it under.
    const { $schema: _draft, ...schema } = JSON.parse(read('deploy/schema/compose-spec.json')) as Record<string, unknown>;
    const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    // And it does refuse a broken file.
    expect(validate({ services: { worker: { image: 'x:1', depends_on: 5, healthcheck: { interval: [] } } } })).toBe(false);
  });

  const dockerCompose = spawnSync('docker-compose', ['version', '--short'], { encoding: 'utf8' });
  test(`passes Docker Compose's own check: ${dockerCompose.status === 0 ? `docker-compose ${dockerCompose.stdout.trim()} config -q` : 'docker-compose is not on PATH, so the schema check above is the check'}`, () => {
    if (dockerCompose.status !== 0) {
      // Not installed (CI installs it when it can): say so, the schema validation above still ran.
      process.stderr.write('deployment test: docker-compose not on PATH; validated against the vendored compose-spec schema only\n');
      expect(dockerCompose.error ?? dockerCompose.status).toBeTruthy();
      return;
    }
    process.stderr.write(`deployment test: validated with docker-compose ${dockerCompose.stdout.trim()} and the compose-spec schema\n`);
    const config = (env: NodeJS.ProcessEnv, profile: string[] = []) =>
      spawnSync('docker-compose', ['--env-file', '.env.example', '-f', 'docker-compose.yml', ...profile, 'config', '-q'], {
        cwd: root,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, ...env },
      });
    const filledIn = {
      PAYLOAD_CODEC_KEYS: `k1:${Buffer.alloc(32, 3).toString('base64')}`,
      INTAKE_KEY: randomBytes(32).toString('hex'),
      ARTIFACT_STORE_ACCESS_KEY: randomBytes(20).toString('hex'),
      ARTIFACT_STORE_SECRET_KEY: randomBytes(32).toString('hex'),
    };
    for (const profile of [[], ['--profile', 'emulator']]) {
      const check = config(filledIn, profile);
      expect({ profile, status: check.status, stderr: check.stderr }).toEqual({ profile, status: 0, stderr: '' });
    }
    // .env.example as shipped leaves the keys to fill in, and compose names each missing one.
    expect(config({}).status).not.toBe(0);
    const unset = config({ ...filledIn, PAYLOAD_CODEC_KEYS: '' });
    expect(unset.status).not.toBe(0);
    expect(unset.stderr).toContain('set PAYLOAD_CODEC_KEYS in .env');
    // Without an intake key the intake would crash-loop: compose refuses to start instead.
    const noIntakeKey = config({ ...filledIn, INTAKE_KEY: '' });
    expect(noIntakeKey.status).not.toBe(0);
    expect(noIntakeKey.stderr).toContain('set INTAKE_KEY in .env');
    // Nor without the artifact store's credentials.
    const noStoreKey = config({ ...filledIn, ARTIFACT_STORE_SECRET_KEY: '' });
    expect(noStoreKey.status).not.toBe(0);
    expect(noStoreKey.stderr).toContain('set ARTIFACT_STORE_SECRET_KEY in .env');
  });

  test('runs Temporal on PostgreSQL with the UI, the schema and search attribute jobs, the worker, the intake and the codec server', () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      'artifact-bucket',
      'artifact-store',
      'codec-server',
      'intake',
      'postgresql',
      'register-search-attributes',
      'temporal',
      'temporal-namespace',
      'temporal-schema',
      'temporal-ui',
      'worker',
      'worker-emulated',
    ]);
    expect(compose.services.temporal!.image).toMatch(/^temporalio\/server:/);
    expect(compose.services['temporal-ui']!.image).toMatch(/^temporalio\/ui:/);
    expect(compose.services['worker-emulated']!.profiles).toEqual(['emulator']);
    expect(compose.services['register-search-attributes']!.command).toEqual(['register-search-attributes']);
    expect(compose.services.intake!.command).toEqual(['intake', '--host', '0.0.0.0', '--port', '8788']);
    expect(composeText).toContain('TEMPORAL_CODEC_ENDPOINT: ${CODEC_PUBLIC_URL}');
  });

  describe('topology: stateless workers and intake around Temporal on PostgreSQL and an S3 artifact store', () => {
    const service = (name: string) => compose.services[name]!;
    const environment = (name: string) => service(name).environment ?? {};
    const apps = ['worker', 'worker-emulated', 'intake'];

    test('Temporal keeps its state in the PostgreSQL service, its schema made by the admin tools job', () => {
      expect(service('postgresql').image).toMatch(/^postgres:/);
      for (const name of ['temporal', 'temporal-schema']) {
        expect(environment(name)).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql' });
      }
      expect(service('temporal').depends_on).toMatchObject({ 'temporal-schema': { condition: 'service_completed_successfully' } });
    });

    test('the artifact store is an S3 server in the stack, with its bucket made before any worker or intake starts', () => {
      expect(service('artifact-store').image).toMatch(/^chrislusf\/seaweedfs:/);
      expect(read('deploy/seaweedfs/start.sh')).toMatch(/exec weed server .*-s3 -s3\.port=8333/s);
      expect(service('artifact-bucket').depends_on).toEqual({ 'artifact-store': { condition: 'service_healthy' } });
      expect(read('deploy/seaweedfs/create-bucket.sh')).toContain('aws s3api create-bucket --bucket "$ARTIFACT_BUCKET"');
      for (const name of apps) {
        expect({ name, dependsOn: service(name).depends_on }).toMatchObject({
          name,
          dependsOn: { 'artifact-bucket': { condition: 'service_completed_successfully' } },
        });
        expect({ name, environment: environment(name) }).toMatchObject({
          name,
          environment: {
            ARTIFACT_URL: 's3://${ARTIFACT_BUCKET}/artifacts',
            ARTIFACT_DIR: '',
            AWS_ENDPOINT_URL: 'http://artifact-store:8333',
            AWS_S3_FORCE_PATH_STYLE: 'true',
            AWS_ACCESS_KEY_ID: expect.stringMatching(/^\$\{ARTIFACT_STORE_ACCESS_KEY:\?/),
            AWS_SECRET_ACCESS_KEY: expect.stringMatching(/^\$\{ARTIFACT_STORE_SECRET_KEY:\?/),
          },
        });
        expect(environment(name).WEBHOOK_SECRET_DIR).toBeUndefined();
      }
    });

    test('two worker replicas, and no volume on any worker or the intake (nothing shared through a disk)', () => {
      expect(service('worker').deploy?.replicas).toBe(2);
      for (const name of [...apps, 'codec-server', 'register-search-attributes'])
        expect({ name, volumes: service(name).volumes }).toEqual({ name, volumes: undefined });
      // A named volume belongs to one service: Temporal's database, or the artifact store's data.
      const owners = new Map<string, string[]>();
      for (const [name, { volumes = [] }] of services) {
        for (const volume of volumes.map((mount) => mount.split(':')[0]!).filter((source) => !/^[./]/.test(source)))
          owners.set(volume, [...(owners.get(volume) ?? []), name]);
      }
      expect(Object.fromEntries(owners)).toEqual({ 'temporal-db': ['postgresql'], 'artifact-data': ['artifact-store'] });
      expect(Object.keys(compose.volumes ?? {}).sort()).toEqual(['artifact-data', 'temporal-db']);
    });
  });

  test.each(services)('%s has a healthcheck or is a one-shot job', (name, service) => {
    if (oneShots.has(name)) expect(service.restart).toMatch(/^(no|on-failure(:\d+)?)$/);
    else expect(service.healthcheck?.test).toBeDefined();
  });

  test.each(services.filter(([, service]) => service.depends_on))('%s starts after its dependencies are healthy or done', (name, service) => {
    expect(Array.isArray(service.depends_on)).toBe(false);
    for (const [dependency, { condition }] of Object.entries(service.depends_on as Record<string, { condition: string }>)) {
      // The one soft edge: the UI serves everything but decoding while the codec server is down (it
      // refuses to start without a token unless told otherwise), so the UI does not wait for it.
      const wanted = oneShots.has(dependency)
        ? 'service_completed_successfully'
        : name === 'temporal-ui' && dependency === 'codec-server'
          ? 'service_started'
          : 'service_healthy';
      expect({ dependency, condition }).toEqual({ dependency, condition: wanted });
    }
  });

  test('is safe by default: the intake key is required, the codec server needs a token, the emulator only on purpose', () => {
    const environment = (name: string) => (compose.services[name] as { environment?: Record<string, string> }).environment ?? {};
    expect(environment('intake').INTAKE_KEY).toMatch(/^\$\{INTAKE_KEY:\?/);
    expect(environment('worker').INTAKE_KEY).toMatch(/^\$\{INTAKE_KEY:\?/);
    expect(envExample.CODEC_SERVER_ALLOW_UNAUTHENTICATED).toBe('false');
    // Only the emulator profile's worker asks for the emulator; the production worker refuses an empty service.
    expect(environment('worker').RESEARCH_SERVICE).toBeUndefined();
    expect(environment('worker-emulated').RESEARCH_SERVICE).toBe('emulator');
  });

  test("pins the Temporal UI image to the version the browser test drives (the pinned CLI's own UI)", () => {
    const cli = projectBinaries(process.env.TEMPORAL_INSTALL_DIR).cli;
    const version = spawnSync(cli, ['--version'], { encoding: 'utf8' });
    expect(version.status).toBe(0);
    const ui = /UI (\d+\.\d+\.\d+)/.exec(version.stdout)?.[1];
    expect(envExample.TEMPORAL_UI_VERSION).toBe(ui);
  });

  test('pins every image tag (no latest, no missing tag)', () => {
    for (const [name, service] of services) {
      const image = (service.image ?? '').replace(/\$\{(\w+)\}/g, (_all, variable: string) => envExample[variable] ?? `<unset ${variable}>`);
      expect({ name, image }).toEqual({ name, image: expect.stringMatching(/^[\w./-]+:\d[\w.-]*$/) });
    }
  });

  test('every variable the compose file uses is documented in .env.example', () => {
    const used = [...new Set([...composeText.matchAll(/\$\{(\w+)(?:[:?-][^}]*)?\}/g)].map((match) => match[1]!))];
    expect(used.length).toBeGreaterThan(10);
    expect(used.filter((variable) => !(variable in envExample))).toEqual([]);
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const stages = dockerfile.split(/^(?=FROM )/m).filter((part) => part.startsWith('FROM '));
  const runtime = stages.at(-1)!;

  test('is multi-stage: the build stage compiles, the runtime stage only copies production dependencies and dist', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stages.some((stage) => /RUN npm ci\n[\s\S]*RUN npm run build/.test(stage))).toBe(true);
    expect(runtime).toMatch(/COPY --from=\w+ .*\/app\/dist/);
    expect(runtime).toMatch(/COPY --from=\w+ .*\/app\/node_modules/);
    expect(runtime).not.toMatch(/npm (ci|install|run build)|tsc/);
    expect(stages.some((stage) => stage.includes('npm ci --omit=dev'))).toBe(true);
  });

  test('runs as a non-root user on pinned base images', () => {
    const user = /^USER (\S+)/m.exec(runtime)?.[1];
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    for (const stage of stages) expect(stage.split('\n')[0]).toMatch(/^FROM [\w./-]+:\d[\w.-]* AS \w+$/);
  });

  test('.dockerignore keeps local dependencies, builds, secrets and env files out of the context', () => {
    const ignored = read('.dockerignore').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.env', '.webhook-secrets', '.git']));
  });
});
