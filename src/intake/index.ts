/** The HTTP intake: service webhooks, app-event triggers, checkpoint answers, health and metrics. */
export { buildIntake, intakeLoggerOptions, maskedUrl, type Intake, type IntakeOptions } from './server';
export { loadIntakeConfig, type IntakeConfig } from './config';
export { intakeWebhookSecrets, runIntake, type IntakeStores, type ListenOptions } from './command';
export { IntakeMetrics } from './metrics';
export type { ResultStore } from './result-routes';
