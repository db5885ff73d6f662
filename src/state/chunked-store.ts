import type { CredentialStore } from './credential-store.js';

/**
 * Windows Credential Manager holds at most 2560 bytes in one secret (CRED_MAX_CREDENTIAL_BLOB_SIZE),
 * and a token set with JWTs (access, refresh and ID token) is often larger. A save that fails
 * after the code exchange ends the login; after a refresh the server has already rotated, it
 * loses the session. So on Windows a large secret is split across entries: the account itself
 * holds a short index naming a generation and a count, and the parts live at
 * `<account>#<generation>.<n>`. Each save writes a new generation's parts before the index that
 * names them, then removes the old generation: a reader sees the old secret or the new, whole.
 */
export const WINDOWS_SECRET_LIMIT_BYTES = 2560;
/** Parts stay well inside the limit, whatever keytar adds (it stores the secret as UTF-8). */
const PART_BYTES = 2000;
const INDEX = /^school-parts:v1:([0-9a-z]+):(\d{1,4})$/;

const indexOf = (generation: string, count: number) => `school-parts:v1:${generation}:${count}`;
const partAccount = (account: string, generation: string, n: number) => `${account}#${generation}.${n}`;

/** Splits text into pieces of at most `bytes` UTF-8 bytes, never inside a character. */
function split(text: string, bytes: number): string[] {
  const parts: string[] = [];
  let current = '';
  let size = 0;
  for (const ch of text) {
    const length = Buffer.byteLength(ch);
    if (size + length > bytes) {
      parts.push(current);
      current = '';
      size = 0;
    }
    current += ch;
    size += length;
  }
  if (current || parts.length === 0) parts.push(current);
  return parts;
}

export function chunkedStore(store: CredentialStore, partBytes = PART_BYTES): CredentialStore {
  const readIndex = async (account: string) => {
    const value = await store.get(account);
    const m = value === null ? null : INDEX.exec(value);
    return { value, parts: m ? { generation: m[1], count: Number(m[2]) } : undefined };
  };
  const removeParts = async (account: string, generation: string, count: number) => {
    for (let n = 0; n < count; n++) await store.delete(partAccount(account, generation, n));
  };
  return {
    kind: store.kind,
    location: store.location,
    async get(account) {
      // Twice at most: a save between reading the index and its parts removes the parts read.
      for (let attempt = 0; attempt < 2; attempt++) {
        const { value, parts } = await readIndex(account);
        if (!parts) return value;
        const pieces: string[] = [];
        for (let n = 0; n < parts.count; n++) {
          const piece = await store.get(partAccount(account, parts.generation, n));
          if (piece === null) break;
          pieces.push(piece);
        }
        if (pieces.length === parts.count) return pieces.join('');
      }
      return null;
    },
    async set(account, secret) {
      const before = await readIndex(account);
      if (Buffer.byteLength(secret) <= partBytes && !INDEX.test(secret)) {
        await store.set(account, secret);
      } else {
        const generation = Date.now().toString(36) + Math.floor(Math.random() * 36 ** 4).toString(36);
        const pieces = split(secret, partBytes);
        for (const [n, piece] of pieces.entries()) await store.set(partAccount(account, generation, n), piece);
        await store.set(account, indexOf(generation, pieces.length));
      }
      if (before.parts) await removeParts(account, before.parts.generation, before.parts.count);
    },
    async delete(account) {
      const { parts } = await readIndex(account);
      const removed = await store.delete(account);
      if (parts) await removeParts(account, parts.generation, parts.count);
      return removed;
    },
  };
}
