import type { ResearchClient } from '../api';
import type { WebhookSecretStore } from '../shared/webhook-secrets';
import type { ArtifactStore } from './store';

/** What the activities need from the outside world; tests inject fakes of each. */
export interface ActivityDeps {
  api: ResearchClient;
  store: ArtifactStore;
  secrets: WebhookSecretStore;
  /**
   * Public base URL of the intake; when set, tasks and batches get
   * `webhook_url = <base>/webhooks/research/<workflow id>/<route token>`. Unset means the workflow relies on polling.
   */
  webhookBaseUrl?: string;
  /** The intake key the route tokens of webhook URLs are made with; required with `webhookBaseUrl`. Never logged. */
  intakeKey?: string;
  /**
   * Signing secret of run notifications (`whsec_<base64>`, the worker's NOTIFY_SECRET): without it a run
   * whose definition or trigger names `notify:` URLs sends nothing and says why. Never logged.
   */
  notifySecret?: string;
  /** Where `url_env` of a SQL sink is looked up (the worker's environment by default). */
  env?: Readonly<Record<string, string | undefined>>;
  /** The clock, for tests (milliseconds since the epoch). */
  now?: () => number;
}
