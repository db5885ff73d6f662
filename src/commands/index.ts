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

/** What each command of the table runs (all but `help`, which the program answers itself). */
export const COMMANDS: readonly CommandEntry[] = [
  loginCommand,
  logoutCommand,
  tokenCommand,
  callCommand,
  apiCommand,
  mcpCommand,
  skillCommand,
  whoamiCommand,
  statusCommand,
  doctorCommand,
  completionCommand,
  completeCommand,
  completeLoginCommand,
];
