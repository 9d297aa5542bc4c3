import { z } from 'zod';

const LOOPBACK_HOSTS = new Set(['localhost', '[::1]', '::1']);

/** True for loopback hosts: `localhost`, `127.0.0.0/8` and `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Why a webhook URL is refused, or undefined when it is allowed: the service requires HTTPS, and for
 * local development plain HTTP to a loopback address is accepted too.
 */
export function webhookUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return 'must be an HTTPS URL (plain HTTP is accepted only for a loopback address)';
}

/** A webhook URL the service will accept. */
export const webhookUrl = z.string().superRefine((value, ctx) => {
  const problem = webhookUrlProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});
