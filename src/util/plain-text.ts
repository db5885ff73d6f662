/**
 * A description written in HTML or Markdown (as API descriptions are) as plain text for a
 * terminal: tags and markup reduced to their words, paragraphs kept, list items kept as `- item`
 * lines, long lines wrapped to a width. Every line is then made printable, so nothing the server
 * wrote acts on the terminal.
 */
import { printable } from './printable.js';

/** HTML elements read as markup; anything else in angle brackets (`<id>`, `a < b`) is text. */
const BLOCK_TAGS = 'p|div|section|article|header|footer|table|thead|tbody|tr|blockquote|pre|dl|details|summary|h[1-6]|hr';
const INLINE_TAGS = 'a|b|i|em|strong|code|span|sup|sub|kbd|tt|u|s|del|ins|small|mark|abbr|cite|q|var|samp|img|font|td|th|dt|dd';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', ndash: '–', mdash: '—', hellip: '…', rsquo: '’', lsquo: '‘', rdquo: '”', ldquo: '“' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,8});/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** HTML markup as lines: blocks on lines of their own, `<li>` as `- `, `<br>` a line break, other tags dropped. */
function fromHtml(text: string): string {
  return text
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<li(?:\s[^<>]*)?>/gi, '\n- ')
    .replace(/<\/li\s*>/gi, '\n')
    .replace(/<\/?(?:ul|ol)(?:\s[^<>]*)?>/gi, '\n\n')
    .replace(new RegExp(`</?(?:${BLOCK_TAGS})(?:\\s[^<>]*)?/?>`, 'gi'), '\n\n')
    .replace(new RegExp(`</?(?:${INLINE_TAGS})(?:\\s[^<>]*)?/?>`, 'gi'), '')
    .replace(/<!--[\s\S]*?-->/g, '');
}

/** Markdown within one line: links to their text and address, emphasis and code spans to their words. */
function inlineMarkdown(line: string): string {
  return line
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_, words: string, url: string) => (url.startsWith('http') ? `${words} (${url})` : words))
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/__([^_]+)__/g, '$1')
    .replace(/(^|[\s(])\*([^*\s][^*]*)\*(?=[\s).,;:!?]|$)/g, '$1$2')
    .replace(/`([^`]+)`/g, '$1');
}

type Block = { kind: 'text'; text: string } | { kind: 'item'; marker: string; text: string } | { kind: 'code'; lines: string[] };

const ITEM = /^\s*(?:([-*+\u2022])|(\d{1,3}[.)]))\s+(.*)$/;

/** The blocks of a description: paragraphs, list items, and code kept line for line. */
export function textBlocks(raw: string): Block[] {
  const lines = fromHtml(raw.replace(/\r\n?/g, '\n')).split('\n');
  const blocks: Block[] = [];
  let open: Block | undefined;
  let fence = false;
  for (const rawLine of lines) {
    const line = decodeEntities(rawLine).replace(/\t/g, '  ');
    if (/^\s*(```|~~~)/.test(line)) {
      fence = !fence;
      open = fence ? { kind: 'code', lines: [] } : undefined;
      if (open) blocks.push(open);
      continue;
    }
    if (fence && open?.kind === 'code') {
      open.lines.push(line.trimEnd());
      continue;
    }
    const words = line.trim();
    if (!words || /^(?:[-*_]\s*){3,}$/.test(words)) {
      open = undefined;
      continue;
    }
    const item = ITEM.exec(line);
    if (item) {
      open = { kind: 'item', marker: item[1] ? '-' : item[2].replace(')', '.'), text: inlineMarkdown(item[3].trim()) };
      blocks.push(open);
      continue;
    }
    const text = inlineMarkdown(words.replace(/^#{1,6}\s+/, '').replace(/^>\s?/, ''));
    if (/^#{1,6}\s/.test(words)) {
      blocks.push({ kind: 'text', text });
      open = undefined;
    } else if (open && open.kind !== 'code') open.text = `${open.text} ${text}`;
    else {
      open = { kind: 'text', text };
      blocks.push(open);
    }
  }
  return blocks.filter((b) => b.kind !== 'code' || b.lines.length > 0);
}

/** Words wrapped to a width; a word longer than the width stands on a line of its own. */
export function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (current && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else current = current ? `${current} ${word}` : word;
  }
  if (current) lines.push(current);
  return lines;
}

/**
 * A description as lines of at most `width` characters (a word longer than that aside), each
 * starting with `indent`: paragraphs apart by a blank line, list items one after another.
 */
export function plainText(raw: string, options: { width: number; indent?: string; maxLines?: number }): string {
  const indent = options.indent ?? '';
  const width = Math.max(20, options.width - indent.length);
  const out: string[] = [];
  let previous: Block['kind'] | undefined;
  for (const block of textBlocks(raw)) {
    if (out.length && !(block.kind === 'item' && previous === 'item')) out.push('');
    previous = block.kind;
    if (block.kind === 'code') out.push(...block.lines.map((l) => `${indent}  ${printable(l)}`));
    else if (block.kind === 'text') out.push(...wrapWords(printable(block.text), width).map((l) => `${indent}${l}`));
    else {
      const lead = `${block.marker} `;
      const wrapped = wrapWords(printable(block.text), width - lead.length);
      out.push(...wrapped.map((l, i) => `${indent}${i ? ' '.repeat(lead.length) : lead}${l}`));
    }
  }
  const max = options.maxLines ?? Number.POSITIVE_INFINITY;
  return (out.length > max ? [...out.slice(0, max), `${indent}…`] : out).join('\n');
}
