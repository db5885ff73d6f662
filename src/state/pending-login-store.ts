// fs.promises, not node:fs/promises: the promise API loads a dozen modules, so only where it is used.
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import type { StorageKind } from '../types/storage.js';
import { registerSecret } from '../util/redact.js';
import { writeFileAtomic } from './atomic.js';
import { pendingLoginAccount } from './credential-store.js';
import { type LoginOutcome, type PendingLogin, type PendingLoginRecord, isLoginOutcome, isPendingLoginRecord, pendingSecrets, readPendingSecrets } from './pending-login.js';
import { type StoreContext, parseJson } from './store-context.js';

/**
 * Logins started and not yet finished (`login --no-wait`): a record file each, the PKCE verifier in
 * a credential store; and how each ended, for `login --wait`.
 */
export interface PendingLogins {
  savePendingLogin(pending: PendingLogin): Promise<void>;
  pendingLogin(profile: string): Promise<PendingLogin | undefined>;
  /** What is known of a pending login without reading its secret: for `status`, `--wait` and superseding it. */
  pendingLoginRecord(profile: string): Promise<PendingLoginRecord | undefined>;
  pendingLoginRecords(): Promise<PendingLoginRecord[]>;
  removePendingLogin(profile: string, storage: StorageKind): Promise<void>;
  saveLoginOutcome(outcome: LoginOutcome): Promise<void>;
  loginOutcome(profile: string): Promise<LoginOutcome | undefined>;
  removeLoginOutcome(profile: string): Promise<void>;
}

export function openPendingLogins(ctx: StoreContext): PendingLogins {
  const { paths, openStore, readOwnFile } = ctx;
  const pendingFile = (profile: string) => join(paths.pendingDir, `${profile}.json`);
  const outcomeFile = (profile: string) => join(paths.pendingDir, 'outcomes', `${profile}.json`);
  const pendingRecord = async (profile: string): Promise<PendingLoginRecord | undefined> => {
    const record = parseJson(await readOwnFile(pendingFile(profile)));
    return isPendingLoginRecord(record) && record.profile === profile ? record : undefined;
  };
  return {
    async savePendingLogin(pending) {
      const { codeVerifier, dpopKey, ...record } = pending;
      await (await openStore(pending.storage)).set(pendingLoginAccount(paths.configDir, pending.profile), pendingSecrets({ codeVerifier, dpopKey }));
      await writeFileAtomic(pendingFile(pending.profile), `${JSON.stringify(record, null, 2)}\n`, 0o600);
    },
    async pendingLogin(profile) {
      const record = await pendingRecord(profile);
      if (!record) return undefined;
      const entry = await (await openStore(record.storage)).get(pendingLoginAccount(paths.configDir, profile));
      const secrets = entry ? readPendingSecrets(entry) : undefined;
      if (!secrets) return undefined;
      registerSecret(secrets.codeVerifier);
      registerSecret(secrets.dpopKey?.d);
      return { ...record, ...secrets };
    },
    pendingLoginRecord: pendingRecord,
    async pendingLoginRecords() {
      const names = await fs.readdir(paths.pendingDir).catch((): string[] => []);
      const records: PendingLoginRecord[] = [];
      for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
        const record = await pendingRecord(name.slice(0, -'.json'.length));
        if (record) records.push(record);
      }
      return records;
    },
    async removePendingLogin(profile, storage) {
      await fs.rm(pendingFile(profile), { force: true });
      await (await openStore(storage)).delete(pendingLoginAccount(paths.configDir, profile)).catch(() => undefined);
    },
    async saveLoginOutcome(outcome) {
      await writeFileAtomic(outcomeFile(outcome.profile), `${JSON.stringify(outcome, null, 2)}\n`, 0o600);
    },
    async loginOutcome(profile) {
      const outcome = parseJson(await readOwnFile(outcomeFile(profile)));
      return isLoginOutcome(outcome) && outcome.profile === profile ? outcome : undefined;
    },
    async removeLoginOutcome(profile) {
      await fs.rm(outcomeFile(profile), { force: true });
    },
  };
}
