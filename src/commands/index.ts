import { callCommand } from './call/call.js';
import type { CommandEntry } from './command.js';
import { completeCommand } from './completion/complete.js';
import { completionCommand } from './completion/completion.js';
import { completeLoginCommand } from './login/complete-login.js';
import { loginCommand } from './login/login.js';
import { logoutCommand } from './logout/logout.js';
import { statusCommand } from './status/status.js';
import { tokenCommand } from './token/token.js';
import { whoamiCommand } from './whoami/whoami.js';

/** Every command, in the order `school --help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [loginCommand, logoutCommand, whoamiCommand, tokenCommand, callCommand, statusCommand, completionCommand, completeCommand, completeLoginCommand];
