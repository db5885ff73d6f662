// The processes an end-to-end test file started (the CLI, its background listeners, the browser
// driver and its Chromium) all carry SCHOOL_TEST_OWNER=<pid of the test worker> in their
// environment (userEnv sets it; children inherit it). Whatever still carries it once the file's
// tests are over was left behind: a login waiting out its timeout after a test gave up on it, a
// background listener nobody completed or cancelled.
import { readdirSync, readFileSync } from 'node:fs';

export const OWNER_VARIABLE = 'SCHOOL_TEST_OWNER';

export interface Leftover {
  pid: number;
  command: string;
}

/** Processes (other than this one) whose environment names `owner` as their test owner; Linux only (/proc). */
export function processesOwnedBy(owner: string): Leftover[] {
  const marker = `${OWNER_VARIABLE}=${owner}`;
  const found: Leftover[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'utf8').split('\0');
      if (!environ.includes(marker)) continue;
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
      found.push({ pid: Number(entry), command });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/**
 * Waits up to `graceMs` for the owned processes to end by themselves (a browser driver closes
 * its Chromium just after the login it served), then kills what is left and returns it.
 */
export async function reapLeftovers(owner: string, graceMs = 3_000): Promise<Leftover[]> {
  const deadline = Date.now() + graceMs;
  let left = processesOwnedBy(owner);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    left = processesOwnedBy(owner);
  }
  for (const { pid } of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ended meanwhile
    }
  }
  return left;
}
