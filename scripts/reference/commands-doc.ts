// The command reference (docs/commands.md), made from the table.
import { helpTopicText } from '../../src/commands/help-topics.js';
import { argumentSyntax, flagSyntax } from '../../src/commands/syntax.js';
import type { CompletionKind, FlagSpec, ValueKind } from '../../src/commands/table.js';
import { GLOBAL_FLAGS, PROGRAM, commandSpec } from '../../src/commands/table.js';
import { TOPICS, VISIBLE } from './model.js';

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

function valueText(kind: ValueKind | undefined, repeat: boolean | undefined): string {
  if (!kind) return 'switch';
  const many = repeat ? ', repeatable' : '';
  switch (kind.type) {
    case 'string':
      return `text${many}`;
    case 'seconds':
      return `seconds, above 0, at most ${kind.max}${many}`;
    case 'integer':
      return `whole number ${kind.min} to ${kind.max}${kind.check === 'loopback-port' ? ' that browsers allow' : ''}${many}`;
    case 'enum':
      return `one of ${kind.values.join(', ')}${many}`;
    case 'list':
      return `list, comma- or space-separated${kind.check === 'scope-areas' ? ' scope areas' : ''}${many}`;
  }
}

function completionText(complete: CompletionKind | undefined): string {
  switch (complete?.kind) {
    case undefined:
    case 'none':
      return '';
    case 'words':
      return complete.words.join(' ');
    case 'files':
      return complete.stdin ? 'file names, -' : 'file names';
    case 'field':
      return 'file names after @';
    case 'topics':
      return 'commands and help topics';
    case 'profiles':
    case 'scopes':
    case 'paths':
      return `${complete.kind} (cached)`;
    case 'operations':
      return "operations (cached), then each operation's flags and their values";
    case 'media-types':
      return "the operation's media types (cached)";
  }
}

function flagTable(flags: readonly FlagSpec[]): string {
  const rows = flags.map((f) => `| ${code(flagSyntax(f))} | ${cell(valueText(f.value, f.repeat))} | ${f.default ?? ''} | ${cell(completionText(f.complete))} | ${cell(f.help)} |`);
  return ['| flag | value | default | completes | what it does |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

export function commandsDoc(): string {
  const sections = VISIBLE.map(({ name }) => {
    const spec = commandSpec(name);
    const usage = `school ${name}${spec.flags.length ? ' [flags]' : ''}${spec.args.map((a) => ` ${argumentSyntax(a)}`).join('')}`;
    const parts = [`## school ${name}`, `${spec.description.charAt(0).toUpperCase()}${spec.description.slice(1)}.`, `Usage: ${code(usage)}`];
    if (spec.args.length) {
      parts.push(
        ['| argument | what it is | completes |', '| --- | --- | --- |', ...spec.args.map((a) => `| ${code(argumentSyntax(a))} | ${cell(a.help)} | ${cell(completionText(a.complete))} |`)].join('\n'),
      );
    }
    const visible = spec.flags.filter((f) => !f.hidden);
    parts.push(visible.length ? flagTable(visible) : 'No flags of its own; the global flags apply.');
    if (spec.details) parts.push(`\`\`\`text\n${spec.details}\n\`\`\``);
    if (spec.examples.length) parts.push(`Examples:\n\n\`\`\`sh\n${spec.examples.join('\n')}\n\`\`\``);
    return parts.join('\n\n');
  });
  const topics = TOPICS.map((t) => `## school help ${t.name}\n\n${t.description.charAt(0).toUpperCase()}${t.description.slice(1)}.\n\n\`\`\`text\n${helpTopicText(t.name)?.trimEnd()}\n\`\`\``);
  return `# Command reference

<!-- Made from the command table (src/commands/table.ts) by \`npm run build\`: edit the table, not this file. -->

${PROGRAM.description} Every command also answers \`--help\` with what this page says of it; the
completion scripts (\`school completion <shell>\`) offer the same commands, flags and values.

Commands: ${VISIBLE.map((c) => `[${c.name}](#school-${c.name})`).join(', ')}. Help topics: ${TOPICS.map((t) => `[${t.name}](#school-help-${t.name})`).join(', ')}.

## Global flags

Accepted by every command, before or after its name.

${flagTable(GLOBAL_FLAGS)}

${sections.join('\n\n')}

${topics.join('\n\n')}
`;
}
