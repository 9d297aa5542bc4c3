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
  /** The clock, for tests (milliseconds since the epoch). */
  now?: () => number;
}
