// fs.promises, not node:fs/promises: the promise API loads a dozen modules, so only where it is used.
import { closeSync, openSync, promises as fs, readSync, readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { OpenApiDoc } from '../types/api-description.js';
import type { SeenChallenge, ServerInfo } from '../types/server.js';
import { writeFileAtomic } from './atomic.js';
import { openapiCacheFile, openapiDetailFile, openapiIndexFile, serverCacheFile } from './cache-files.js';
import { type StoreContext, parseJson } from './store-context.js';

/** What is cached of each server: its metadata (with its scopes) and its API description. Losing any costs a request. */
export interface Caches {
  cachedServer(baseUrl: string, expectedIssuer?: string): Promise<ServerInfo | undefined>;
  saveServer(info: ServerInfo, fetchedAt: number): Promise<void>;
  /** Every scope a cached server advertises (of one base URL, or of all). */
  cachedScopes(baseUrl?: string): Promise<string[]>;
  /**
   * The cached API description under a key: a base URL, or for a description named elsewhere the
   * base URL with its source (src/session/description-source.ts descriptionCacheKey).
   */
  cachedApiDescription(key: string): Promise<OpenApiDoc | undefined>;
  /** The compact index of a description as saved, its JSON text (its shape is the caller's to check). */
  readApiIndex(key: string): Promise<string | undefined>;
  /**
   * Saves a description's compact index, and with a new document its detail file (named in the
   * index as `detailFile`) and the document itself, as JSON text or its UTF-8 bytes (written as
   * they are, never re-serialized: a 13 MB description costs one write). The index is written last: a reader sees
   * the old index with its old detail file, or the new one with the new.
   */
  saveApiCache(key: string, entry: { index: Record<string, unknown>; detail?: string | Uint8Array; json?: string | Uint8Array }): Promise<{ detailFile: string } | undefined>;
  /** One operation's detail: `length` bytes at `offset` of the index's detail file; the whole file without them. */
  readApiDetail(key: string, detailFile: string, offset?: number, length?: number): Promise<string | undefined>;
  /**
   * The last DPoP nonce an origin gave (RFC 9449 §9), while it may still be good: the first proof
   * of the next process carries it instead of costing a refused request to learn it. Not a secret.
   */
  dpopNonce(origin: string, nowSeconds: number): Promise<string | undefined>;
  saveDpopNonce(origin: string, nonce: string, nowSeconds: number): Promise<void>;
  /**
   * The last challenge a base URL's API answered a request without a usable token with (RFC 9728
   * §5.1), while fresh: the login that follows reads its metadata address and scope. Not a secret.
   */
  seenChallenge(baseUrl: string, nowSeconds: number): Promise<SeenChallenge | undefined>;
  saveSeenChallenge(baseUrl: string, challenge: SeenChallenge, nowSeconds: number): Promise<void>;
}

/** Cache files are replaced in one step but not flushed: losing one costs a request. */
const CACHE_WRITE = { durable: false } as const;

/** How long a remembered nonce is tried: servers rotate them within minutes; a stale one costs one retry. */
export const DPOP_NONCE_FRESH_SECONDS = 300;
/** The origins remembered at most, the most recent kept. */
const MAX_NONCE_ORIGINS = 32;

/** How long a seen challenge guides a login: the login its hint names comes within the day, or not at all. */
const SEEN_CHALLENGE_FRESH_SECONDS = 24 * 3600;
/** The base URLs whose challenge is remembered at most, the most recent kept. */
const MAX_CHALLENGE_BASE_URLS = 32;

type ChallengeEntries = Record<string, SeenChallenge & { savedAt: number }>;

/** The remembered challenges that are well formed: an https or loopback-looking URL string and plain scope words of sane length. */
function challengeEntries(value: unknown): ChallengeEntries {
  const entries: ChallengeEntries = {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) return entries;
  for (const [baseUrl, entry] of Object.entries(value)) {
    const e = entry as { resourceMetadata?: unknown; scope?: unknown; savedAt?: unknown } | null;
    if (!e || typeof e.savedAt !== 'number' || !Number.isFinite(e.savedAt)) continue;
    const resourceMetadata = typeof e.resourceMetadata === 'string' && e.resourceMetadata.length <= 2048 ? e.resourceMetadata : undefined;
    const scope = Array.isArray(e.scope) ? e.scope.filter((s): s is string => typeof s === 'string' && s.length <= 128).slice(0, 64) : undefined;
    entries[baseUrl] = { ...(resourceMetadata ? { resourceMetadata } : {}), ...(scope?.length ? { scope } : {}), savedAt: e.savedAt };
  }
  return entries;
}

type NonceEntries = Record<string, { nonce: string; savedAt: number }>;

/** A nonce as RFC 9449 allows one (NQCHAR: visible ASCII but the double quote and backslash), of a sane length. */
function isNonce(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 1024 && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(value);
}

function nonceEntries(value: unknown): NonceEntries {
  const entries: NonceEntries = {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) return entries;
  for (const [origin, entry] of Object.entries(value)) {
    const e = entry as { nonce?: unknown; savedAt?: unknown } | null;
    if (e && isNonce(e.nonce) && typeof e.savedAt === 'number' && Number.isFinite(e.savedAt)) entries[origin] = { nonce: e.nonce, savedAt: e.savedAt };
  }
  return entries;
}

/**
 * Whether a cache entry was saved for this base URL. Cache file names are short hashes of the URL
 * (cache-files.ts), so an entry of another URL may share one: it is then a miss.
 */
function isEntryOf(entry: unknown, baseUrl: string): entry is { baseUrl: string } {
  return typeof entry === 'object' && entry !== null && 'baseUrl' in entry && entry.baseUrl === baseUrl;
}

function isServerInfo(value: unknown): value is ServerInfo {
  if (!value || typeof value !== 'object') return false;
  const v: { baseUrl?: unknown; as?: { issuer?: unknown; token_endpoint?: unknown } } = value;
  return typeof v.baseUrl === 'string' && typeof v.as?.issuer === 'string' && typeof v.as.token_endpoint === 'string';
}

/** The scopes a cached server entry advertises; completion reads them however little else the entry has. */
function scopesOf(entry: unknown): string[] {
  if (!entry || typeof entry !== 'object' || !('as' in entry) || !entry.as || typeof entry.as !== 'object') return [];
  const supported = 'scopes_supported' in entry.as ? entry.as.scopes_supported : undefined;
  return Array.isArray(supported) ? supported.filter((s): s is string => typeof s === 'string') : [];
}

function isOpenApiDoc(value: unknown): value is OpenApiDoc {
  return Boolean(value && typeof value === 'object' && !Array.isArray(value));
}

/** The detail files of one index but the current one: left by an earlier fetch. */
function removeOtherDetailFiles(indexFile: string, keep: string): void {
  const prefix = basename(indexFile).replace(/\.index\.json$/, '.');
  try {
    for (const name of readdirSync(dirname(indexFile))) {
      if (name !== keep && name.startsWith(prefix) && name.endsWith('.detail.jsonl')) rmSync(join(dirname(indexFile), name), { force: true });
    }
  } catch {
    // A file another process still reads, or one already gone: the next fetch tries again.
  }
}

export function openCaches(ctx: StoreContext): Caches {
  const { paths, readOwnFile } = ctx;
  const serverFile = (baseUrl: string) => serverCacheFile(paths.cacheDir, baseUrl);
  const noncesFile = join(paths.cacheDir, 'dpop-nonces.json');
  const readNonces = async () => nonceEntries(parseJson(await readOwnFile(noncesFile)));
  const challengesFile = join(paths.cacheDir, 'challenges.json');
  const readChallenges = async () => challengeEntries(parseJson(await readOwnFile(challengesFile)));
  return {
    async cachedServer(baseUrl, expectedIssuer) {
      const cached = parseJson(await readOwnFile(serverFile(baseUrl)));
      if (!isServerInfo(cached) || !isEntryOf(cached, baseUrl)) return undefined;
      return !expectedIssuer || cached.as.issuer === expectedIssuer ? cached : undefined;
    },
    async saveServer(info, fetchedAt) {
      // Losing the cache costs nothing but a network call, so a failed write is not an error.
      const body = JSON.stringify({ fetchedAt, ...info }, null, 2);
      await writeFileAtomic(serverFile(info.baseUrl), `${body}\n`, 0o600).catch(() => undefined);
    },
    async cachedScopes(baseUrl) {
      const dir = join(paths.cacheDir, 'servers');
      const files = baseUrl ? [serverFile(baseUrl)] : (await fs.readdir(dir).catch((): string[] => [])).map((f) => join(dir, f));
      const scopes = new Set<string>();
      for (const f of files) {
        const info = parseJson(await readOwnFile(f));
        if (baseUrl && !isEntryOf(info, baseUrl)) continue;
        for (const s of scopesOf(info)) scopes.add(s);
      }
      return [...scopes];
    },
    async cachedApiDescription(key) {
      const entry = parseJson(await readOwnFile(openapiCacheFile(paths.cacheDir, key)));
      if (!isEntryOf(entry, key) || !('doc' in entry)) return undefined;
      return isOpenApiDoc(entry.doc) ? entry.doc : undefined;
    },
    async readApiIndex(key) {
      return readOwnFile(openapiIndexFile(paths.cacheDir, key));
    },
    async saveApiCache(key, entry) {
      const baseUrl = key;
      // Losing the cache costs a request, so a failed write is not an error.
      try {
        const indexFile = openapiIndexFile(paths.cacheDir, baseUrl);
        let index = entry.index;
        let detailFile: string | undefined;
        if (entry.detail !== undefined) {
          detailFile = basename(openapiDetailFile(paths.cacheDir, baseUrl, `${Date.now().toString(36)}${process.pid.toString(36)}`));
          await writeFileAtomic(join(dirname(indexFile), detailFile), typeof entry.detail === 'string' ? entry.detail : [entry.detail], 0o600, CACHE_WRITE);
          index = { ...index, detailFile };
        }
        // The document's text as it came: wrapping it costs a concatenation, where JSON.stringify would walk it all.
        if (entry.json !== undefined) await writeFileAtomic(openapiCacheFile(paths.cacheDir, baseUrl), [`{"baseUrl":${JSON.stringify(baseUrl)},"doc":`, entry.json, '}'], 0o600, CACHE_WRITE);
        await writeFileAtomic(indexFile, JSON.stringify(index), 0o600, CACHE_WRITE);
        if (detailFile) removeOtherDetailFiles(indexFile, detailFile);
        return { detailFile: typeof index.detailFile === 'string' ? index.detailFile : '' };
      } catch {
        return undefined;
      }
    },
    async readApiDetail(key, detailFile, offset, length) {
      // Only a file of this key, beside its index: the name comes from a file, not a path to follow.
      const prefix = basename(openapiIndexFile(paths.cacheDir, key)).replace(/\.index\.json$/, '.');
      if (!detailFile.startsWith(prefix) || detailFile !== basename(detailFile) || !detailFile.endsWith('.detail.jsonl')) return undefined;
      const file = join(paths.cacheDir, 'openapi', detailFile);
      if (offset === undefined || length === undefined) return readOwnFile(file);
      if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(length) || offset < 0 || length < 0 || length > 64 * 1024 * 1024) return undefined;
      await ctx.checkOwnDirs();
      let fd: number | undefined;
      try {
        fd = openSync(file, 'r');
        const buffer = Buffer.alloc(length);
        const read = readSync(fd, buffer, 0, length, offset);
        return read === length ? buffer.toString('utf8') : undefined;
      } catch {
        return undefined;
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
    },
    async dpopNonce(origin, nowSeconds) {
      const entry = (await readNonces().catch((): NonceEntries => ({})))[origin];
      return entry && nowSeconds - entry.savedAt >= 0 && nowSeconds - entry.savedAt < DPOP_NONCE_FRESH_SECONDS ? entry.nonce : undefined;
    },
    async saveDpopNonce(origin, nonce, nowSeconds) {
      if (!isNonce(nonce)) return;
      // Two processes may write at once: the last one wins, and either nonce was the server's.
      const entries = await readNonces().catch((): NonceEntries => ({}));
      delete entries[origin];
      const kept = Object.entries(entries)
        .sort(([, a], [, b]) => b.savedAt - a.savedAt)
        .slice(0, MAX_NONCE_ORIGINS - 1);
      const next = Object.fromEntries([[origin, { nonce, savedAt: nowSeconds }], ...kept]);
      await writeFileAtomic(noncesFile, `${JSON.stringify(next)}\n`, 0o600).catch(() => undefined);
    },
    async seenChallenge(baseUrl, nowSeconds) {
      const entry = (await readChallenges().catch((): ChallengeEntries => ({})))[baseUrl];
      if (!entry || nowSeconds - entry.savedAt < 0 || nowSeconds - entry.savedAt >= SEEN_CHALLENGE_FRESH_SECONDS) return undefined;
      const { savedAt: _, ...challenge } = entry;
      return challenge;
    },
    async saveSeenChallenge(baseUrl, challenge, nowSeconds) {
      // Two processes may write at once: the last one wins, and either challenge was the server's.
      const entries = await readChallenges().catch((): ChallengeEntries => ({}));
      delete entries[baseUrl];
      const kept = Object.entries(entries)
        .sort(([, a], [, b]) => b.savedAt - a.savedAt)
        .slice(0, MAX_CHALLENGE_BASE_URLS - 1);
      const next = Object.fromEntries([[baseUrl, { ...challenge, savedAt: nowSeconds }], ...kept]);
      await writeFileAtomic(challengesFile, `${JSON.stringify(next)}\n`, 0o600);
    },
  };
}
