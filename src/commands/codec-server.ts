import { payloadCodecFromConfig } from '../codec/data-converter';
import { startCodecServer } from '../codec/server';
import { ConfigError, type Config } from '../config';

/**
 * `rp codec-server`: serves the configured codec to the Temporal UI until SIGINT or SIGTERM. Refuses to
 * start without keys, and without a token unless CODEC_SERVER_ALLOW_UNAUTHENTICATED=true says so.
 */
export async function serveCodec(config: Config, options: { port: number; host: string }, log: (line: string) => void): Promise<void> {
  const codec = payloadCodecFromConfig(config);
  const issues = [
    ...(!codec ? [{ variable: 'PAYLOAD_CODEC_KEYS', message: 'is required: the codec server decodes with these keys' }] : []),
    ...(!config.codecServer.token && !config.codecServer.allowUnauthenticated
      ? [
          {
            variable: 'CODEC_SERVER_TOKEN',
            message: 'is required (the UI sends it as a bearer token); set CODEC_SERVER_ALLOW_UNAUTHENTICATED=true only for a port no one else reaches',
          },
        ]
      : []),
  ];
  if (issues.length > 0 || !codec) throw new ConfigError(issues);
  const server = await startCodecServer({
    codec,
    token: config.codecServer.token,
    corsOrigins: config.codecServer.corsOrigins,
    namespaces: [config.temporal.namespace],
    host: options.host,
    port: options.port,
  });
  log(
    `codec server on ${server.url} (/encode, /decode) for namespace ${config.temporal.namespace}; UI origins: ${config.codecServer.corsOrigins.join(', ')}; ${config.codecServer.token ? 'bearer token required' : 'no token (CODEC_SERVER_ALLOW_UNAUTHENTICATED)'}`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
}
