// The end-to-end project's global setup: one headless Chromium for the whole run. Each sign-in of
// the browser driver gets a fresh context of it (test/e2e/harness.ts passes its endpoint as
// BROWSER_DRIVER_ENDPOINT) instead of starting a Chromium of its own, which on two cores is most
// of what a sign-in costs.
import { launchBrowserServer } from '@school/sandbox/browser-driver';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    browserEndpoint: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await launchBrowserServer();
  project.provide('browserEndpoint', server.endpoint);
  return () => server.close();
}
