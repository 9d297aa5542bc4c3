import { LocalArtifactStore, type ArtifactStore } from './store';

/** Where the artifact store is, as the worker's and the intake's configurations give it. */
export interface ArtifactStoreSettings {
  /** ARTIFACT_DIR: the local store's folder. */
  artifactDir: string;
}

/**
 * The artifact store of these settings. The worker and `rp intake` both open theirs here, so they always
 * agree on where artifacts and webhook secret records are.
 */
export function openArtifactStore(settings: ArtifactStoreSettings): ArtifactStore {
  return new LocalArtifactStore(settings.artifactDir);
}
