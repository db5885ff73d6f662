/** Shows a URL to the person: a browser, or whatever `BROWSER` names. */
export interface BrowserOpener {
  /** Tries to show the URL to the user; never throws. */
  open(url: string): Promise<{ opened: boolean; reason?: string }>;
}
