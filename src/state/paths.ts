import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import type { Env } from '../options.js';

/** Every file and folder the CLI keeps, named once. */
export interface Paths {
  configDir: string;
  configFile: string;
  /** The plain-text credential file used when the keychain is not (or may not be) used. */
  credentialsFile: string;
  /** Tokens kept between invocations of one CI job (headless mode). */
  stateDir: string;
  /** The plain-text credential file of headless CI jobs, when no keychain is usable. */
  jobCredentialsFile: string;
  /** Logins prepared but not yet completed, one file per profile. */
  pendingDir: string;
  /** Server metadata and API descriptions, for completions without a network call. */
  cacheDir: string;
  lockDir: string;
}

export function resolvePaths(env: Env, home: string = env.HOME || homedir()): Paths {
  // A relative SCHOOL_CONFIG_DIR is taken from the working directory once, so that the background
  // listener (which runs elsewhere) and the keychain's account names see the same folder.
  const explicit = env.SCHOOL_CONFIG_DIR && !isAbsolute(env.SCHOOL_CONFIG_DIR) ? resolve(env.SCHOOL_CONFIG_DIR) : env.SCHOOL_CONFIG_DIR;
  const configDir = explicit || join(env.XDG_CONFIG_HOME || join(home, '.config'), 'school');
  // With an explicit config dir everything lives under it, so a CI job can cache one folder.
  const stateDir = explicit ? join(explicit, 'state') : join(env.XDG_STATE_HOME || join(home, '.local', 'state'), 'school');
  const cacheDir = explicit ? join(explicit, 'cache') : join(env.XDG_CACHE_HOME || join(home, '.cache'), 'school');
  return {
    configDir,
    configFile: join(configDir, 'config.json'),
    credentialsFile: join(configDir, 'credentials.json'),
    stateDir,
    jobCredentialsFile: join(stateDir, 'credentials.json'),
    pendingDir: join(stateDir, 'pending'),
    cacheDir,
    lockDir: join(configDir, 'locks'),
  };
}
