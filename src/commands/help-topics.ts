import { ERROR_ACTION_TEXT, ERROR_CODES } from '../error-codes.js';
import { EXIT_CODE_MEANINGS, ExitCode } from '../errors.js';
import { ENVIRONMENT, HELP_TOPICS } from './table.js';

const WIDTH = 80;

/** `text` folded into lines of at most `width` characters, each after `indent` spaces but the first. */
function fold(text: string, width: number, indent: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

/** Rows of two columns: the first padded to its widest cell, the second folded beside it. */
function twoColumns(rows: ReadonlyArray<readonly [string, string]>): string {
  const left = Math.max(...rows.map(([name]) => name.length)) + 2;
  return rows.map(([name, text]) => `  ${name.padEnd(left)}${fold(text, WIDTH, left + 2)}`).join('\n');
}

function environment(): string {
  return `Environment variables school reads:\n\n${twoColumns(ENVIRONMENT.map((v) => [v.name, v.meaning]))}\n`;
}

function exitCodes(): string {
  const rows = (Object.keys(ExitCode) as Array<keyof typeof ExitCode>).map((name) => [String(ExitCode[name]), EXIT_CODE_MEANINGS[name]] as const);
  return `Exit status of school:\n\n${twoColumns(rows)}\n\nWith --json, an error is also a JSON object on stderr; see \`school help errors\`.\n`;
}

function errors(): string {
  const rows = Object.entries(ERROR_CODES).map(([code, info]) => [`${code} (${info.exit})`, `${info.meaning} To do: ${ERROR_ACTION_TEXT[info.action]}.`] as const);
  return `With --json, an error is one JSON object on stderr: {"error": code, "message": …, "hint": …,
"scope": …}. The codes, each with its exit status:\n\n${twoColumns(rows)}\n`;
}

const RENDER: Readonly<Record<string, () => string>> = { environment, 'exit-codes': exitCodes, errors };

/** The text of `school help <topic>`, or undefined for a name that is no topic. */
export function helpTopicText(name: string): string | undefined {
  return HELP_TOPICS.some((t) => t.name === name) && Object.hasOwn(RENDER, name) ? RENDER[name]() : undefined;
}
