// The walk behind judgeCommand: every node of the parsed command, every simple command, every
// place bash turns data into code, every string run as code (judged at up to three levels).
import type * as Unbash from 'unbash/dist/parser';
import type { Stdin } from './commandCode';
import {
  denyRulesSet, judgeAssignment, judgeDenied, newShared, promptVariants, pushPart, unreadable, UNREADABLE_UNDER_DENY, type Context, type TextMode,
} from './commandContext';
import { evaluation, mayHoldCode } from './commandEvaluation';
import { judgeWords } from './commandLevels';
import type { Rules } from './commandRules';
import { clip, latentText, shellWord } from './commandWords';

// unbash is ESM-only with an "exports" map that this project's node10 module resolution cannot
// read: the types come from its dist path, the code through require (esbuild bundles it into CJS).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parse, forEachChild } = require('unbash') as typeof Unbash;

const DEVICES_NOT_FILES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);
const CODE_IN_SUBSCRIPT = /\[[^\]]*(\$\(|`)/;

export function newContext(rules: Rules): Context {
  return { rules, parts: [], problems: [], depth: 0, shared: newShared(), judgeText: judgeScript };
}

export function judgeScript(source: string, ctx: Context, mode: TextMode = 'script'): void {
  try {
    if (mode === 'script') return visit(parse(source), source, ctx);
    // Read as a here-document body, which bash expands like a prompt string. The delimiter is
    // no line of the text; the empty line keeps a trailing `\` from joining the delimiter's line.
    const taken = new Set(source.split('\n').filter((line) => line.startsWith('TOOLBELT_TEXT')));
    let delimiter = 'TOOLBELT_TEXT';
    for (let n = 1; taken.has(delimiter); n++) delimiter = `TOOLBELT_TEXT_${n}`;
    const wrapped = `: <<${delimiter}\n${source}\n\n${delimiter}\n`;
    const script = parse(wrapped);
    for (const error of script.errors ?? []) ctx.problems.push(`cannot parse: ${error.message}`);
    const command = script.commands[0]?.command;
    const body = command?.type === 'Command' ? command.redirects.find((r): r is Unbash.HereDoc => r.type === 'HereDoc')?.body : undefined;
    if (!body) return;
    // A here-document body is read leniently: an unfinished `$(` runs to its end instead of failing.
    const unfinished = (body.parts ?? []).find((p) => p.type !== 'Literal' && !/[)`}\]]$/.test(p.text));
    if (unfinished) ctx.problems.push(`an unfinished \`${clip(unfinished.text.trim())}\``);
    visit(body, wrapped, ctx);
  } catch (error) {
    ctx.problems.push(`cannot analyse the command (${(error as Error).message})`);
  }
}

function visit(node: Unbash.SyntaxNode, src: string, ctx: Context): void {
  if (node.type === 'Script') {
    if (node.source !== undefined) src = node.source;
    for (const error of (node as Unbash.ParsedScript).errors ?? []) ctx.problems.push(`cannot parse: ${error.message} (at character ${error.pos})`);
  } else if (node.type === 'Command') {
    judgeSimpleCommand(node, src, ctx);
  } else if (node.type === 'Redirected') {
    const writes = writesOf(node.redirects, src);
    if (writes.length > 0) pushPart(ctx, node.redirects.map((r) => src.slice(r.pos, r.end)).join(' '), 'ask', `writes to ${writes.join(', ')}`, writes);
  } else if (node.type === 'Word' || node.type === 'HereDocBody') {
    const text = node.type === 'Word' ? latentText(node) : node.text;
    if (mayHoldCode(text)) ctx.shared.latent.push(text);
  } else {
    const found = evaluation(node);
    if (found) {
      const text = src.slice(node.pos, node.end);
      if (found.kind === 'evaluates') ctx.shared.evaluates = true;
      if (found.kind === 'opaque') pushPart(ctx, text, unreadable(ctx), denyRulesSet(ctx) ? `${found.reason}; ${UNREADABLE_UNDER_DENY} (write the command without it)` : found.reason, []);
      else pushPart(ctx, text, 'ask', found.reason, []);
    }
  }
  forEachChild(node, (child) => visit(child, src, ctx));
}

function judgeSimpleCommand(command: Unbash.Command, src: string, ctx: Context): void {
  const text = src.slice(command.pos, command.end);
  const writes = writesOf(command.redirects, src);
  const cautions: string[] = [];
  const unreadables: string[] = [];
  for (const item of command.prefix) {
    if (item.type === 'Assignment') judgeAssignment(shellWord(item, src), command.name ? 'for the command' : 'shell', cautions, unreadables, ctx);
  }
  for (const item of [...command.prefix, ...(command.name ? [command.name] : []), ...command.args]) {
    const word = item.type === 'Word' || item.type === 'Assignment' ? shellWord(item, src) : undefined;
    if (word?.literal && CODE_IN_SUBSCRIPT.test(word.value)) {
      ctx.shared.evaluates = true;
      cautions.push(`\`${clip(word.raw)}\` holds $(…) in a subscript, which bash runs where it is used as a variable name`);
    }
  }
  if (!command.name) {
    if (writes.length > 0) cautions.push(`it writes to ${writes.join(', ')}`);
    if (unreadables.length > 0) return pushPart(ctx, text, unreadable(ctx), [...unreadables, ...cautions].join('; '), writes);
    return pushPart(ctx, text, cautions.length > 0 ? 'ask' : 'allow', cautions.join('; ') || 'only sets variables', writes);
  }
  judgeWords([command.name, ...command.args].map((w) => shellWord(w, src)), { text, writes, cautions, unreadables, stdin: stdinOf(command, src) }, ctx);
}

/** Substitutions written into data that bash evaluates somewhere in the command (arithmetic, ${!x}, …). */
export function judgeLatentCode(ctx: Context): void {
  for (const text of new Set(ctx.shared.latent)) {
    judgeDenied(promptVariants(text).filter(mayHoldCode), 'prompt', ctx, `it is written in \`${clip(text)}\`, and bash evaluates values in this command`, true);
  }
}

function stdinOf(command: Unbash.Command, src: string): Stdin {
  let stdin: Stdin = { kind: 'unknown' };
  for (const r of command.redirects) {
    const descriptor = r.descriptor?.type === 'FileDescriptor' ? r.descriptor.value : undefined;
    if (descriptor !== undefined && descriptor !== 0) continue;
    if (r.type === 'HereDoc') {
      const literal = r.delimiter?.quoted || (r.body.parts ?? []).every((p) => p.type === 'Literal');
      stdin = literal ? { kind: 'text', text: r.body.text } : { kind: 'unknown' };
    } else if (r.type === 'HereString') {
      const word = r.target ? shellWord(r.target, src) : undefined;
      stdin = word?.literal ? { kind: 'text', text: word.value } : { kind: 'unknown' };
    } else if (r.operator === '<' || r.operator === '<>') {
      const target = r.target ? shellWord(r.target, src) : undefined;
      stdin = target?.literal && !/^\/(dev|proc)\//.test(target.value) ? { kind: 'file' } : { kind: 'unknown' };
    } else if (r.operator === '<&') stdin = { kind: 'unknown' };
  }
  return stdin;
}

function writesOf(redirects: readonly Unbash.Redirection[], src: string): string[] {
  const writes: string[] = [];
  for (const r of redirects) {
    if (r.type !== 'Redirect' || !r.target || !['>', '>>', '>|', '&>', '&>>', '<>', '>&'].includes(r.operator)) continue;
    const target = shellWord(r.target, src);
    if (r.operator === '>&' && target.literal && /^(\d+-?|-)$/.test(target.value)) continue;
    if (!(target.literal && DEVICES_NOT_FILES.has(target.value))) writes.push(target.raw);
  }
  return writes;
}
