import { apiCommand } from './api/api.js';
import { callCommand } from './call/call.js';
import type { CommandEntry } from './command.js';
import { completeCommand } from './completion/complete.js';
import { completionCommand } from './completion/completion.js';
import { doctorCommand } from './doctor/doctor.js';
import { completeLoginCommand } from './login/complete-login.js';
import { loginCommand } from './login/login.js';
import { logoutCommand } from './logout/logout.js';
import { mcpCommand } from './mcp/mcp.js';
import { skillCommand } from './skill/skill.js';
import { statusCommand } from './status/status.js';
import { tokenCommand } from './token/token.js';
import { whoamiCommand } from './whoami/whoami.js';

/** The headings of `school --help`, each with its commands in the order listed. */
export const COMMAND_GROUPS: ReadonlyArray<{ heading: string; commands: readonly CommandEntry[] }> = [
  { heading: 'Sign in:', commands: [loginCommand, logoutCommand] },
  { heading: 'Use the API:', commands: [tokenCommand, callCommand, apiCommand, mcpCommand, skillCommand] },
  { heading: 'Inspect:', commands: [whoamiCommand, statusCommand, doctorCommand] },
  { heading: 'Shell:', commands: [completionCommand] },
];

/** Every command: the grouped ones, then the hidden helpers (the completion scripts' and the background login's). */
export const COMMANDS: readonly CommandEntry[] = [...COMMAND_GROUPS.flatMap((g) => g.commands), completeCommand, completeLoginCommand];
