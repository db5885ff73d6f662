#!/usr/bin/env node
// Starts the sandbox from its TypeScript sources (see src/main.ts for the flags); tsx compiles
// them on the fly, so there is no build step between editing the sandbox and running it.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
