import type { Profile } from '../config/config.js';
import { type Deps, openStore } from '../deps.js';
import type { CredentialStore } from './store.js';
import { profileAccount } from './store.js';
import { type TokenSet, parseTokenSet } from './token-set.js';

/** A profile's entry in its store: where it lives, and its tokens when there are any (a damaged entry throws). */
export async function readProfileTokens(deps: Deps, name: string, profile: Profile): Promise<{ store: CredentialStore; account: string; set?: TokenSet }> {
  const store = await openStore(deps, profile.storage);
  const account = profileAccount(deps.paths.configDir, name);
  const text = await store.get(account);
  return { store, account, set: text ? parseTokenSet(text, store.location) : undefined };
}
