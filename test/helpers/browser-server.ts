// The end-to-end project's global setup: one headless Chromium for the whole run, and the sign-in
// service beside it. Each sign-in gets a fresh context of that Chromium instead of a Chromium of
// its own; the driver command the CLI runs as its browser hands its sign-in to the service
// (test/e2e/harness.ts passes it as BROWSER_DRIVER_SERVICE) rather than loading Playwright itself.
// On two cores, starting a browser, then loading Playwright, was most of what a sign-in cost.
import { launchBrowserServer } from '@school/sandbox/browser-driver';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    browserEndpoint: string;
    browserService: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await launchBrowserServer();
  project.provide('browserEndpoint', server.endpoint);
  project.provide('browserService', server.service);
  return () => server.close();
}
