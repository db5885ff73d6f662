import { parseScopes } from '../../auth/scopes.js';
import { loadConfig } from '../../config/config.js';
import type { Deps } from '../../deps.js';
import { UsageError } from '../../errors.js';
import { type GlobalOptions, baseUrlFor, profileName } from '../context.js';
import { loginFlow } from './flow.js';
import { printable } from '../../util/printable.js';

export interface LoginOptions extends GlobalOptions {
  scope?: string[];
  /** false with --no-browser */
  browser: boolean;
  port?: string;
  timeout?: string;
  confidential?: boolean;
  insecureStorage?: boolean;
  clientMetadataUrl?: string;
}

export const DEFAULT_LOGIN_TIMEOUT_SECONDS = 300;

function parsePort(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 65535) throw new UsageError(`Invalid --port "${value}": use a number from 1 to 65535.`);
  return n;
}

function parseTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LOGIN_TIMEOUT_SECONDS;
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || n <= 0 || n > 86_400) throw new UsageError(`Invalid --timeout "${value}": use a number of seconds from 1 to 86400.`);
  return n;
}

export async function loginRun(deps: Deps, opts: LoginOptions): Promise<void> {
  const profile = profileName(opts, deps.env);
  const port = parsePort(opts.port);
  const timeoutSeconds = parseTimeout(opts.timeout);
  const config = await loadConfig(deps.paths);
  const baseUrl = baseUrlFor(opts, deps.env, config.profiles[profile]);
  if (!baseUrl) {
    throw new UsageError('No base URL: pass --base-url https://your-school.example (or set SCHOOL_BASE_URL).');
  }
  const result = await loginFlow(deps, {
    profile,
    baseUrl,
    scopes: opts.scope ? parseScopes(opts.scope) : undefined,
    port,
    timeoutSeconds,
    openBrowser: opts.browser !== false,
    confidential: Boolean(opts.confidential),
    insecureStorage: Boolean(opts.insecureStorage),
    clientMetadataUrl: opts.clientMetadataUrl || deps.env.SCHOOL_CLIENT_METADATA_URL || undefined,
  });
  const where = result.storage.kind === 'keychain' ? 'the OS keychain' : result.storage.location;
  deps.io.err.write(`Logged in as ${printable(result.user)} on ${printable(result.profile.baseUrl)}${profile === 'default' ? '' : ` (profile ${profile})`}.\n`);
  if (deps.verbose) deps.io.err.write(`Credentials are in ${where}.\n`);
}
