import { findNodeAtLocation, parseTree, type JSONPath, type Node } from 'jsonc-parser';
import type { Scheduler } from '../../tools/callBudget';
import { locateEntry, REGISTRY_SETTING, registryPath, type TextRange } from './settingsText';

// The problems ToolManager finds in `toolbelt.tools.registry`, made calm: placed on the text that
// causes them (for diagnostics), said in plain words (for the one toast), and reported once per
// real change after the typing stops. Pure: no vscode import, so unit tests run in plain Node.

export interface RegistryProblems {
  warnings: readonly string[];
  errors: readonly string[];
}

export interface LocatedProblem extends TextRange {
  severity: 'error' | 'warning';
  /** The message in plain words. */
  message: string;
}

/** What a ToolManager message says about where it applies: `toolbelt.tools.registry[3] ("x"): …`. */
export function parseProblem(message: string): { index?: number; name?: string; rest: string; sentence?: boolean } {
  const match = /^toolbelt\.tools\.registry\[(\d+)\](?: \("((?:[^"\\]|\\.)*)"\))?(: | )/.exec(message);
  if (!match) return { rest: message };
  // `…[5] must be an object…` reads on as one sentence; `…[5]: unknown tool…` starts a new one.
  const sentence = match[3] === ' ' ? { sentence: true } : {};
  return { index: Number(match[1]), ...(match[2] !== undefined ? { name: match[2] } : {}), rest: message.slice(match[0].length), ...sentence };
}

/**
 * Where each problem is in a settings text: the entry it names (its "name" property, or the whole
 * entry when it has none), else the entry naming the tool it quotes, else the setting's key.
 * Problems about a registry this text does not hold are left out.
 */
export function locateProblems(text: string, problems: RegistryProblems, path: JSONPath = registryPath(false)): LocatedProblem[] {
  const root = parseTree(text, [], { allowTrailingComma: true });
  const valueNode = root && findNodeAtLocation(root, path);
  if (!valueNode) return [];
  const keyNode = valueNode.parent?.children?.[0];
  const located: LocatedProblem[] = [];
  const add = (severity: LocatedProblem['severity'], message: string) => {
    const range = rangeOf(text, message, valueNode, keyNode, path);
    if (range) located.push({ severity, message: plainProblem(message), ...range });
  };
  for (const message of problems.errors) add('error', message);
  for (const message of problems.warnings) add('warning', message);
  return located;
}

function rangeOf(text: string, message: string, value: Node, key: Node | undefined, path: JSONPath): TextRange | undefined {
  const { index } = parseProblem(message);
  if (index !== undefined && value.type === 'array') {
    const element = value.children?.[index];
    if (!element) return undefined;
    const name = element.type === 'object' ? element.children?.find((p) => p.children?.[0]?.value === 'name') : undefined;
    const target = name ?? element;
    return { offset: target.offset, length: target.length };
  }
  const quoted = /"((?:[^"\\]|\\.)+)"/.exec(message)?.[1];
  const entry = quoted ? locateEntry(text, quoted, path) : undefined;
  if (entry) return entry;
  const anchor = key ?? value;
  return { offset: anchor.offset, length: anchor.length };
}

/**
 * A ToolManager message in a person's words: `toolbelt.tools.registry[6] ("write_file"): "type" is
 * deprecated…` becomes `"write_file" in the tool settings: "type" is deprecated…`, and a
 * `toolbelt.tools.registry[2]` inside the text becomes `entry 3`.
 */
export function plainProblem(message: string): string {
  const { index, name, rest, sentence } = parseProblem(message);
  const text = rest.replace(/toolbelt\.tools\.registry\[(\d+)\]/g, (_, n: string) => `entry ${Number(n) + 1}`);
  if (index === undefined) return text;
  if (name !== undefined) return `"${name}" in the tool settings: ${text}`;
  return `Entry ${index + 1} of the tool settings${sentence ? ' ' : ': '}${text}`;
}

/** The one toast for a set of problems: the first one in plain words, and how many more. */
export function problemToast(problems: RegistryProblems, where: string): string {
  const all = [...problems.errors, ...problems.warnings];
  const first = plainProblem(all[0] ?? '').replace('in the tool settings', `in ${where} tool settings`).replace('of the tool settings', `of ${where} tool settings`);
  return all.length === 1 ? `Toolbelt: ${first}` : `Toolbelt: ${all.length} problems in ${where} tool settings (${REGISTRY_SETTING}). The first: ${first}`;
}

/**
 * Decides when the problems deserve a toast: only once they have stayed the same for `quietMs`
 * (auto-save while typing changes them every few keystrokes), and only when they differ from the
 * last ones shown. Problems that go away before the quiet period ends are never shown.
 */
export class ProblemToastGate {
  private shown = '';
  private pending: { key: string; problems: RegistryProblems } | undefined;
  private timer: unknown;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly quietMs: number,
    private readonly show: (problems: RegistryProblems) => void,
  ) {}

  update(problems: RegistryProblems): void {
    const key = problemKey(problems);
    if (this.pending?.key === key) return;
    if (this.timer !== undefined) this.scheduler.clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
    if (key === this.shown) return;
    if (key === '') {
      // All fixed: the next problem is news again, even the same one.
      this.shown = '';
      return;
    }
    this.pending = { key, problems };
    this.timer = this.scheduler.setTimeout(() => this.fire(), this.quietMs);
  }

  dispose(): void {
    if (this.timer !== undefined) this.scheduler.clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = undefined;
  }

  private fire(): void {
    const pending = this.pending;
    this.timer = undefined;
    this.pending = undefined;
    if (!pending) return;
    this.shown = pending.key;
    this.show(pending.problems);
  }
}

/** The same set of problems, whatever their order and wherever the entries moved to. */
function problemKey(problems: RegistryProblems): string {
  const key = (m: string) => {
    const { name, rest } = parseProblem(m);
    return `${name ?? ''}|${rest}`;
  };
  return [...problems.errors.map((m) => `E${key(m)}`), ...problems.warnings.map((m) => `W${key(m)}`)].sort().join('\n');
}
