import { closeSync, fchmodSync, fstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** One line of `audit.jsonl`: what was done on the person's behalf. Never a body, a query value or a secret. */
export interface AuditEntry {
  time: string;
  profile: string;
  tool: string;
  method: string | null;
  path: string | null;
  /** The HTTP status, or null when nothing was sent (refused, not logged in). */
  status: number | null;
  duration_ms: number;
  /** Why nothing was sent, when nothing was. */
  refused?: string;
  /** A sign-in URL handed out for the person: one this call started, or one found still waiting. */
  sign_in?: 'started' | 'waiting';
}

/**
 * The path of a request for the log, as it was sent (a URL's origin dropped, the rest never parsed:
 * the parser would turn a `%2E%2E` segment back into `..`): no query, no fragment, at most 512 characters.
 */
export function auditPath(target: string): string {
  return target
    .replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '')
    .replace(/[?#].*$/s, '')
    .slice(0, 512);
}

/**
 * Appends one JSON line per tool call to the audit file, created 0600 in a 0700 directory. The
 * file stays open while the server runs; a write that fails is reported once, never fatal.
 */
export class AuditLog {
  private fd: number | undefined;
  private failed = false;

  constructor(
    readonly file: string,
    private readonly redact: (text: string) => string,
    private readonly warn: (text: string) => void,
  ) {}

  write(entry: AuditEntry): void {
    try {
      if (this.fd === undefined) {
        mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
        const fd = openSync(this.file, 'a', 0o600);
        // A file made by hand is made private before anything is added.
        if ((fstatSync(fd).mode & 0o077) !== 0 && process.platform !== 'win32') fchmodSync(fd, 0o600);
        this.fd = fd;
      }
      writeSync(this.fd, `${this.redact(JSON.stringify(entry))}\n`);
    } catch (err) {
      if (!this.failed) this.warn(`Cannot write the audit log ${this.file}: ${err instanceof Error && 'code' in err ? String(err.code) : 'error'}.`);
      this.failed = true;
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
