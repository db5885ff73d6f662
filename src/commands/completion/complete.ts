import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cachedOpenApi } from '../../api/openapi.js';
import { serverCacheFile } from '../../auth/discover.js';
import type { Deps } from '../../deps.js';
import { type GlobalOptions, baseUrlFor, profileName } from '../context.js';
import { isPlainPath, isPlainScope } from '../../util/plain-name.js';
import { checkProfileName, loadConfig } from '../../config/config.js';

export interface CompleteOptions extends GlobalOptions {
  args?: unknown[];
}

async function cachedScopes(deps: Deps, baseUrl: string | undefined): Promise<string[]> {
  const files = baseUrl
    ? [await serverCacheFile(deps.paths.cacheDir, baseUrl)]
    : (await readdir(join(deps.paths.cacheDir, 'servers')).catch(() => [] as string[])).map((f) => join(deps.paths.cacheDir, 'servers', f));
  const scopes = new Set<string>();
  for (const f of files) {
    try {
      const info = JSON.parse(await readFile(f, 'utf8')) as { as?: { scopes_supported?: string[] } };
      for (const s of Array.isArray(info.as?.scopes_supported) ? info.as.scopes_supported : []) if (isPlainScope(s)) scopes.add(s);
    } catch {
      // no cache yet: nothing to offer
    }
  }
  return [...scopes];
}

function isPlainProfile(name: string): boolean {
  try {
    return checkProfileName(name) === name;
  } catch {
    return false;
  }
}

/**
 * Candidates for shell completion, one a line, from local files only: completion must never
 * wait on the network.
 */
export async function completeRun(deps: Deps, opts: CompleteOptions): Promise<void> {
  const kind = String(opts.args?.[0] ?? '');
  let out: string[] = [];
  try {
    const config = await loadConfig(deps.paths);
    let baseUrl: string | undefined;
    try {
      baseUrl = baseUrlFor(opts, deps.env, config.profiles[profileName(opts, deps.env)]);
    } catch {
      baseUrl = undefined;
    }
    // Only plain names: a completion is inserted into a command line the user is about to run.
    if (kind === 'profiles') out = Object.keys(config.profiles).filter(isPlainProfile).sort();
    else if (kind === 'scopes') out = await cachedScopes(deps, baseUrl);
    else if (kind === 'paths' && baseUrl) {
      const doc = await cachedOpenApi(deps.paths.cacheDir, baseUrl);
      out = Object.keys(doc?.paths && typeof doc.paths === 'object' ? doc.paths : {}).filter(isPlainPath).sort();
    }
  } catch {
    out = []; // a broken config must not break the user's shell
  }
  if (out.length) deps.io.out.write(`${out.join('\n')}\n`);
}
