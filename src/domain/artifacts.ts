/**
 * References to what the artifact store holds: workflow history carries these (a key, a size, a hash),
 * never the bodies. Plain JSON, shared by activities (which write them) and workflows (which pass them on).
 */
import type { TaskStatus } from '../api/schemas';

/** Where a stored artifact lives, with enough to check it. */
export interface ArtifactRef {
  /** Store-relative key, e.g. `research/<workflow id>/report.md`. */
  key: string;
  /** Absolute location a user can open: a `file://` URL for the local store, `s3://bucket/key` for the S3 store. */
  uri: string;
  bytes: number;
  sha256: string;
  contentType: string;
}

/** What was stored for one task: references, sizes and counts. */
export interface StoredOutputs {
  status: TaskStatus;
  report?: ArtifactRef;
  sources?: ArtifactRef;
  pdf?: ArtifactRef;
  deliverables: ArtifactRef[];
  images: ArtifactRef[];
  /** Files the service listed but would not serve (e.g. 404): stored outputs are kept, these are named. */
  missing?: Array<{ name: string; reason: string }>;
  sourceCount: number;
  cost?: number;
  error?: string;
  completedAt?: string;
}
