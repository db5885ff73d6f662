// fs.promises, not node:fs/promises: the promise API loads a dozen modules, so only where it is used.
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { StorageKind } from '../types/storage.js';
import { readFileIfExists, writeFileAtomic } from './atomic.js';
import { type CredentialStore, PLAIN_STORAGE, PREFERRED_STORAGE, isStorageKind, jobAccount } from './credential-store.js';
import { type StoreContext, parseJson } from './store-context.js';
import { type TokenSet, parseTokenSet, serializeTokenSet } from './token-set.js';

/** Tokens of one headless CI job, kept between its invocations. */
interface JobState {
  /** Where the tokens are kept, for messages. */
  location: string;
  read(): Promise<TokenSet | undefined>;
  write(set: TokenSet): Promise<void>;
  /** Whether the job was already told that its seed was spent by a rotation. */
  rotationNoticeShown: boolean;
  markRotationNoticeShown(): Promise<void>;
}

/** The state of headless CI jobs: a marker file each (where its tokens are), the tokens in a credential store. */
export interface JobStates {
  /** Job state keyed to a seed; the keychain when usable on first use, else the job file. */
  jobState(key: string): Promise<JobState>;
  /** Removes the state of every headless CI job (tokens and markers); throws when a store refuses. */
  forgetJobStates(): Promise<number>;
}

function isJobMarker(value: unknown): value is { storage: StorageKind; rotationNoticeShown?: boolean } {
  return Boolean(value && typeof value === 'object' && 'storage' in value && isStorageKind(value.storage));
}

export function openJobStates(ctx: StoreContext): JobStates {
  const { paths, openStore, probeStore, readOwnFile } = ctx;
  return {
    async jobState(key) {
      const markerFile = join(paths.stateDir, `ci-${key}.json`);
      const account = jobAccount(key);
      const saved = parseJson(await readOwnFile(markerFile));
      let marker: { storage: StorageKind; rotationNoticeShown?: boolean };
      let store: CredentialStore;
      if (isJobMarker(saved)) {
        marker = saved;
        store = await openStore(marker.storage, 'job');
      } else {
        const preferred = await probeStore(PREFERRED_STORAGE, 'job');
        store = preferred.ok ? preferred.store : await openStore(PLAIN_STORAGE, 'job');
        marker = { storage: store.kind };
        await writeFileAtomic(markerFile, `${JSON.stringify(marker)}\n`, 0o600);
      }
      return {
        location: store.location,
        async read() {
          const text = await store.get(account).catch(() => null);
          if (!text) return undefined;
          try {
            return parseTokenSet(text, 'the job state');
          } catch {
            return undefined; // damaged state: the job starts again from its seed
          }
        },
        write: (set) => store.set(account, serializeTokenSet(set)),
        get rotationNoticeShown() {
          return Boolean(marker.rotationNoticeShown);
        },
        async markRotationNoticeShown() {
          marker.rotationNoticeShown = true;
          await writeFileAtomic(markerFile, `${JSON.stringify(marker)}\n`, 0o600).catch(() => undefined);
        },
      };
    },
    async forgetJobStates() {
      const markers = (await fs.readdir(paths.stateDir).catch((): string[] => [])).filter((n) => /^ci-[0-9a-f]+\.json$/.test(n));
      for (const name of markers) {
        const markerFile = join(paths.stateDir, name);
        const marker = parseJson(await readFileIfExists(markerFile).catch(() => undefined));
        const key = name.slice('ci-'.length, -'.json'.length);
        // A marker that cannot be read says nothing of where the tokens are: try both stores.
        const kinds: StorageKind[] = isJobMarker(marker) ? [marker.storage] : [PREFERRED_STORAGE, PLAIN_STORAGE];
        for (const kind of kinds) {
          const removal = openStore(kind, 'job').then((store) => store.delete(jobAccount(key)));
          await (isJobMarker(marker) ? removal : removal.catch(() => false));
        }
        await fs.rm(markerFile, { force: true });
      }
      // The job file holds nothing else: remove it whole, entries of lost markers included.
      await fs.rm(paths.jobCredentialsFile, { force: true });
      return markers.length;
    },
  };
}
