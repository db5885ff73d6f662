/** Shows a URL to the person: a browser, or whatever `BROWSER` names. */
export interface BrowserOpener {
  /** Tries to show the URL to the user; never throws. */
  open(url: string): Promise<BrowserOpened>;
}

export interface BrowserOpened {
  opened: boolean;
  /** Why nothing could be opened. */
  reason?: string;
  /**
   * Where a command was started: settles once it is known not to have failed at once (it is still
   * running after a second or two, or it exited 0) with undefined, or with how it failed (the
   * command and its non-zero exit status, or the signal) when it ended so within that time.
   */
  failure?: Promise<string | undefined>;
}
