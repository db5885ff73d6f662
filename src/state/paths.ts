import { homedir } from 'node:os';
import { join, posix, resolve, win32 } from 'node:path';
import type { Env } from '../types/env.js';

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
  /** What `school mcp` did on the person's behalf, one JSON line per tool call. */
  auditFile: string;
}

/**
 * Where the CLI keeps things. One rule a platform, written down in docs/troubleshooting.md ("Where
 * things live"): with SCHOOL_CONFIG_DIR, everything under it. Else on Linux and macOS the XDG dirs
 * (`~/.config/school`, `~/.local/state/school`, `~/.cache/school`, HOME naming the home). On
 * Windows the platform's own folders whatever the shell: config in %APPDATA%\school (it roams
 * with the user), state and cache in %LOCALAPPDATA%\school; HOME and XDG_* are not read there, since
 * Git Bash sets a HOME that PowerShell and cmd do not.
 */
export function resolvePaths(env: Env, home?: string, platform: NodeJS.Platform = process.platform): Paths {
  if (platform === 'win32' && !env.SCHOOL_CONFIG_DIR) return windowsPaths(env, home ?? (env.USERPROFILE || homedir()));
  return xdgPaths(env, home ?? (env.HOME || homedir()), platform);
}

function windowsPaths(env: Env, home: string): Paths {
  const roaming = env.APPDATA || win32.join(home, 'AppData', 'Roaming');
  const local = env.LOCALAPPDATA || win32.join(home, 'AppData', 'Local');
  const configDir = win32.join(roaming, 'school');
  const stateDir = win32.join(local, 'school', 'state');
  return {
    configDir,
    configFile: win32.join(configDir, 'config.json'),
    credentialsFile: win32.join(configDir, 'credentials.json'),
    stateDir,
    jobCredentialsFile: win32.join(stateDir, 'credentials.json'),
    pendingDir: win32.join(stateDir, 'pending'),
    cacheDir: win32.join(local, 'school', 'cache'),
    lockDir: win32.join(configDir, 'locks'),
    auditFile: win32.join(stateDir, 'audit.jsonl'),
  };
}

function xdgPaths(env: Env, home: string, platform: NodeJS.Platform): Paths {
  const isAbsolute = platform === 'win32' ? win32.isAbsolute : posix.isAbsolute;
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
    auditFile: join(stateDir, 'audit.jsonl'),
  };
}
