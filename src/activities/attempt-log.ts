import { activityContext } from './context';
import type { ArtifactStore } from './store';

/**
 * The durable log of a paid call's attempts, for calls the service cannot look up afterwards (Answer,
 * Search, Contents): an attempt is noted as sent before the call and as settled once the service
 * refused it (an answer that charged nothing). An earlier attempt of the same activity still marked sent
 * either never reported back (its worker was killed, or hung past its timeout) or completed its call and
 * lost the completion: its call may have been charged, or was.
 */
export interface AttemptLog {
  /** Earlier attempts of this activity that sent the call and never settled. */
  unsettledEarlier(): Promise<number>;
  /** Notes that this attempt is about to send the call. */
  sending(): Promise<void>;
  /** Notes that this attempt's call was refused without a charge. */
  settled(): Promise<void>;
}

/** The attempt log of the running activity for item `key` (a no-op outside an activity). */
export async function attemptLog(store: ArtifactStore, folder: string, key: string): Promise<AttemptLog> {
  const info = activityContext()?.info;
  if (!info) return { unsettledEarlier: async () => 0, sending: async () => undefined, settled: async () => undefined };
  // One activity execution (all its attempts) shares a run id and an activity id; a later run-level retry is a new activity.
  const execution = `${info.workflowExecution?.runId ?? 'standalone'}-${info.activityId}`;
  const folderOf = `${folder}/attempts/${key}`;
  const markerOf = (attempt: number) => `${folderOf}/${execution}-${attempt}.json`;
  const write = (state: 'sent' | 'settled') =>
    store
      .put(markerOf(info.attempt), `${JSON.stringify({ state, attempt: info.attempt, at: new Date().toISOString() })}\n`, 'application/json')
      .then(() => undefined);
  return {
    async unsettledEarlier() {
      if (info.attempt <= 1) return 0;
      let unsettled = 0;
      for (let attempt = 1; attempt < info.attempt; attempt++) {
        const ref = await store.stat(markerOf(attempt));
        if (!ref) continue;
        const marker = JSON.parse(Buffer.from(await store.get(ref.key)).toString('utf8')) as { state?: string };
        if (marker.state === 'sent') unsettled++;
      }
      return unsettled;
    },
    sending: () => write('sent'),
    settled: () => write('settled'),
  };
}
