import { findNodeAtLocation, getNodeValue, parseTree, type JSONPath, type Node } from 'jsonc-parser';
import type { Verdict } from './consent';
import type { PolicyDecision } from './policyDecision';
import { lineOf } from './settingsLocations';

/*
 * A team's examples of its policy, kept in settings.json beside the rules they check:
 *   "toolbelt.policy.tests": [{ "tool": "run_bash", "args": { "command": "rm -rf /" }, "expect": "deny" }]
 * Reading them (with where each is written) and checking them against a decide function are pure,
 * so `toolbelt policy test` and the extension's diagnostics share them.
 */

export const POLICY_TESTS_SETTING = 'toolbelt.policy.tests';
const VERDICTS: readonly Verdict[] = ['allow', 'ask', 'deny'];

/** One example as written: where it is, and what it says (or what is wrong with it). */
export interface PolicyExample {
  index: number;
  /** The JSON path of the example, e.g. `["toolbelt.policy.tests", 3]`. */
  path: JSONPath;
  /** The example's range in the text, for a diagnostic; `line` counts from 1. */
  offset: number;
  length: number;
  line: number;
  tool?: string;
  args?: Record<string, unknown>;
  expect?: Verdict;
  /** Set when the example cannot be checked: it is not `{tool, args, expect}`. */
  problem?: string;
}

export interface PolicyExamples {
  /** Whether the setting is in the text at all. */
  found: boolean;
  examples: PolicyExample[];
  /** Set when the setting is there but is not a list. */
  problem?: string;
  /** Where the setting is written, when it is. */
  line?: number;
}

/** The examples of `toolbelt.policy.tests` in a settings.json text (JSONC). `scope`: `["settings"]` in a .code-workspace file. */
export function readPolicyExamples(text: string, scope: JSONPath = []): PolicyExamples {
  const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  const path = [...scope, POLICY_TESTS_SETTING];
  const node = root && findNodeAtLocation(root, path);
  if (!node) return { found: false, examples: [] };
  const line = lineOf(text, (node.parent ?? node).offset);
  if (node.type !== 'array') return { found: true, examples: [], problem: `${POLICY_TESTS_SETTING} must be a list of {"tool", "args", "expect"} examples.`, line };
  const examples = (node.children ?? []).map((child, index) => readExample(text, child, [...path, index], index));
  return { found: true, examples, line };
}

function readExample(text: string, node: Node, path: JSONPath, index: number): PolicyExample {
  const where = { index, path, offset: node.offset, length: node.length, line: lineOf(text, node.offset) };
  const value: unknown = getNodeValue(node);
  const name = `${POLICY_TESTS_SETTING}[${index}]`;
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { ...where, problem: `${name} must be an object {"tool", "args", "expect"}.` };
  const { tool, args, expect } = value as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof tool !== 'string' || tool.trim() === '') problems.push('"tool" must name a tool');
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) problems.push('"args" must be an object of the call\'s arguments');
  if (!VERDICTS.includes(expect as Verdict)) problems.push(`"expect" must be "allow", "ask" or "deny"`);
  const example: PolicyExample = { ...where };
  if (typeof tool === 'string') example.tool = tool.trim();
  if (args && typeof args === 'object' && !Array.isArray(args)) example.args = args as Record<string, unknown>;
  else if (args === undefined) example.args = {};
  if (VERDICTS.includes(expect as Verdict)) example.expect = expect as Verdict;
  if (problems.length > 0) example.problem = `${name}: ${problems.join('; ')}.`;
  return example;
}

export interface PolicyExampleResult {
  example: PolicyExample;
  /** The decision, when the example could be checked. */
  actual?: Pick<PolicyDecision, 'verdict' | 'reason'>;
  pass: boolean;
  /** One line: `toolbelt.policy.tests[3]: run_bash {"command":"ls"} expected deny, got ask (…)`. */
  message: string;
}

/** Decides every example (one at a time, in order) and says which match. Never rejects. */
export async function checkPolicyExamples(
  examples: readonly PolicyExample[],
  decide: (tool: string, args: Record<string, unknown>) => Promise<Pick<PolicyDecision, 'verdict' | 'reason'>>,
): Promise<PolicyExampleResult[]> {
  const results: PolicyExampleResult[] = [];
  for (const example of examples) {
    const name = `${POLICY_TESTS_SETTING}[${example.index}]`;
    if (example.problem !== undefined || example.tool === undefined || example.expect === undefined) {
      results.push({ example, pass: false, message: example.problem ?? `${name} cannot be checked.` });
      continue;
    }
    const call = `${example.tool} ${JSON.stringify(example.args ?? {})}`;
    let actual: Pick<PolicyDecision, 'verdict' | 'reason'>;
    try {
      actual = await decide(example.tool, example.args ?? {});
    } catch (error) {
      results.push({ example, pass: false, message: `${name}: ${call} could not be decided: ${error instanceof Error ? error.message : String(error)}` });
      continue;
    }
    const pass = actual.verdict === example.expect;
    const message = pass ? `${name}: ${call} is ${actual.verdict}, as expected` : `${name}: ${call} expected ${example.expect}, got ${actual.verdict} (${actual.reason})`;
    results.push({ example, actual, pass, message });
  }
  return results;
}
