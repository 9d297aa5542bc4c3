import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One delivery a receiver took, with whether its Standard Webhooks signature checked out. */
export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  verified: boolean;
  /** What the receiver answered. */
  status: number;
  event?: { id: string; type: string; timestamp: string; data: Record<string, unknown> };
}

/** A fresh notification secret in the Standard Webhooks form. */
export function notifySecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * An HTTP receiver on loopback that checks each delivery's signature with the `standardwebhooks`
 * package (as a user's receiver would), answers 503 to the first `failFirst` ones, 204 to the rest.
 */
export async function startReceiver(secret: string, options: { failFirst?: number } = {}) {
  const deliveries: Delivery[] = [];
  let failures = options.failFirst ?? 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified: boolean;
      try {
        new Webhook(secret).verify(body, request.headers as Record<string, string>);
        verified = true;
      } catch {
        verified = false;
      }
      const status = failures > 0 ? 503 : 204;
      if (failures > 0) failures--;
      deliveries.push({
        path: request.url ?? '',
        headers: request.headers,
        body,
        verified,
        status,
        ...(verified ? { event: JSON.parse(body) as Delivery['event'] } : {}),
      });
      response.statusCode = status;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    deliveries,
    /** Deliveries answered 2xx, by event type. */
    accepted: (type: string) => deliveries.filter((delivery) => delivery.status < 300 && delivery.event?.type === type),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
