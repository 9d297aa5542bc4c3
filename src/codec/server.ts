import cors from '@fastify/cors';
import type { PayloadCodec } from '@temporalio/common';
import Fastify, { type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify';
import { matchesAnyDigest, secretDigest } from '../shared/secret-compare';
import { bodyProblem, codecRequestSchema, fromJsonPayload, toJsonPayload } from './server-protocol';

/** Options of {@link codecRoutes}. */
export interface CodecRoutesOptions {
  codec: PayloadCodec;
  /** Bearer token the UI must send (its "pass access token"); `undefined` serves everyone (loopback only). */
  token: string | undefined;
  /** Browser origins allowed to call (the Temporal UI's), or a predicate. */
  corsOrigins: readonly string[] | ((origin: string) => boolean);
  /** Namespaces served (the `X-Namespace` header); any when omitted. */
  namespaces?: readonly string[];
}

// Payloads may be up to Temporal's 2 MB limit each, and a history page carries many of them.
const BODY_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * The Temporal remote codec protocol (`POST /encode`, `POST /decode`, JSON `{ payloads }`) as a fastify
 * plugin: CORS for the UI's origin, bearer token compared in constant time, bodies checked with the
 * failing field named. Register it with a prefix to mount it in another server.
 */
export const codecRoutes: FastifyPluginAsync<CodecRoutesOptions> = async (app, options) => {
  const { corsOrigins } = options;
  await app.register(cors, {
    origin: typeof corsOrigins === 'function' ? (origin, callback) => callback(null, origin !== undefined && corsOrigins(origin)) : [...corsOrigins],
    methods: ['POST', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Namespace'],
    credentials: true,
    maxAge: 600,
  });
  const expected = options.token === undefined ? undefined : secretDigest(`Bearer ${options.token}`);
  // onRequest runs before the body is parsed: a caller without the token gets no byte of its body read.
  app.addHook('onRequest', async (request, reply) => {
    if (request.method === 'OPTIONS') return undefined;
    if (expected && !matchesAnyDigest(secretDigest(request.headers.authorization ?? ''), [expected])) {
      return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'authorization: a valid bearer token is required' });
    }
    const namespace = request.headers['x-namespace'];
    if (options.namespaces && (typeof namespace !== 'string' || !options.namespaces.includes(namespace))) {
      return reply.code(403).send({ error: `X-Namespace: "${String(namespace ?? '')}" is not served here (${options.namespaces.join(', ')})` });
    }
    return undefined;
  });
  const route = (direction: 'encode' | 'decode') => async (request: FastifyRequest, reply: FastifyReply) => {
    const parsed = codecRequestSchema.safeParse(request.body);
    if (!parsed.success) return reply.code(400).send({ error: bodyProblem(parsed.error) });
    try {
      const payloads = await options.codec[direction](parsed.data.payloads.map(fromJsonPayload));
      return { payloads: payloads.map(toJsonPayload) };
    } catch (error) {
      // Unknown key id, tampered payload: the message names the key id, never key material.
      return reply.code(422).send({ error: error instanceof Error ? error.message : String(error) });
    }
  };
  app.post('/encode', { bodyLimit: BODY_LIMIT_BYTES }, route('encode'));
  app.post('/decode', { bodyLimit: BODY_LIMIT_BYTES }, route('decode'));
};

/** http(s) origins on this machine only (the dev server's UI, on a port chosen at start). */
export function isLoopbackOrigin(origin: string): boolean {
  return /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(origin);
}

/** Options of {@link startCodecServer}. */
export interface CodecServerOptions extends CodecRoutesOptions {
  host?: string;
  port?: number;
}

/** A listening codec server. */
export interface RunningCodecServer {
  readonly url: string;
  close(): Promise<void>;
}

/** Starts the codec endpoint on its own (`rp codec-server`, `rp dev`); 127.0.0.1 and a free port by default. */
export async function startCodecServer(options: CodecServerOptions): Promise<RunningCodecServer> {
  const app = Fastify({ logger: false });
  await app.register(codecRoutes, options);
  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return { url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, close: () => app.close() };
}
