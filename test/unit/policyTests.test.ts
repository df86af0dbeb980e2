import * as assert from 'node:assert/strict';
import type { ConsentPlan } from '../../src/tools/consent';
import { decideCall, describeRule, type PolicyDecision } from '../../src/tools/policyDecision';
import { checkPolicyExamples, readPolicyExamples } from '../../src/tools/policyTests';
import { lineOf, locateSetting } from '../../src/tools/settingsLocations';
import { ToolRefusedError } from '../../src/tools/toolErrors';

const TEXT = `{
  "editor.tabSize": 2,
  // examples of the policy
  "toolbelt.policy.tests": [
    { "tool": "run_bash", "args": { "command": "ls" }, "expect": "allow" },
    { "tool": "read_file", "args": { "path": ".env" }, "expect": "maybe" },
    "not an example",
    { "tool": "calculator", "expect": "allow" },
  ],
  "toolbelt.runBash.deniedCommands": ["rm", "  curl  "],
  "toolbelt.approvals.writes": "always"
}`;

describe('policyTests: the examples of toolbelt.policy.tests, where each is written', () => {
  it('reads each example with its JSON path, range and line, and says what is wrong with a bad one', () => {
    const read = readPolicyExamples(TEXT);
    assert.equal(read.found, true);
    assert.equal(read.line, 4);
    assert.deepEqual(read.examples.map((e) => [e.path, e.line, e.tool, e.expect]), [
      [['toolbelt.policy.tests', 0], 5, 'run_bash', 'allow'],
      [['toolbelt.policy.tests', 1], 6, 'read_file', undefined],
      [['toolbelt.policy.tests', 2], 7, undefined, undefined],
      [['toolbelt.policy.tests', 3], 8, 'calculator', 'allow'],
    ]);
    const first = read.examples[0];
    assert.equal(TEXT.slice(first.offset, first.offset + first.length), '{ "tool": "run_bash", "args": { "command": "ls" }, "expect": "allow" }');
    assert.match(read.examples[1].problem!, /"expect" must be "allow", "ask" or "deny"/);
    assert.match(read.examples[2].problem!, /must be an object/);
    assert.deepEqual(read.examples[3].args, {});
  });

  it('in a .code-workspace file, reads them under "settings"; a setting that is not a list is one problem', () => {
    const read = readPolicyExamples('{"settings": {"toolbelt.policy.tests": [{"tool": "a", "expect": "deny"}]}}', ['settings']);
    assert.deepEqual(read.examples[0].path, ['settings', 'toolbelt.policy.tests', 0]);
    assert.equal(readPolicyExamples('{}').found, false);
    assert.match(readPolicyExamples('{"toolbelt.policy.tests": {}}').problem!, /must be a list/);
  });

  it('checks each example against the decide function and says which do not match', async () => {
    const decided: string[] = [];
    const decide = async (tool: string): Promise<PolicyDecision> => {
      decided.push(tool);
      if (tool === 'calculator') throw new Error('boom');
      return { tool, verdict: 'ask', reason: 'because' };
    };
    const results = await checkPolicyExamples(readPolicyExamples(TEXT).examples, decide);
    assert.deepEqual(decided, ['run_bash', 'calculator']);
    assert.deepEqual(results.map((r) => r.pass), [false, false, false, false]);
    assert.equal(results[0].message, 'toolbelt.policy.tests[0]: run_bash {"command":"ls"} expected allow, got ask (because)');
    assert.match(results[3].message, /could not be decided: boom/);
    const passing = await checkPolicyExamples(readPolicyExamples(TEXT).examples.slice(0, 1), async (tool) => ({ tool, verdict: 'allow', reason: '' }));
    assert.equal(passing[0].pass, true);
  });
});

describe('settingsLocations: where a setting or one entry of it is written', () => {
  it('finds a list entry (trimmed as the rules read it), a value, and the setting; not what the file does not say', () => {
    assert.equal(locateSetting(TEXT, 'toolbelt.runBash.deniedCommands', 'curl')!.line, 10);
    assert.equal(locateSetting(TEXT, 'toolbelt.approvals.writes', 'always')!.line, 11);
    assert.equal(locateSetting(TEXT, 'toolbelt.policy.tests')!.line, 4);
    assert.equal(locateSetting(TEXT, 'toolbelt.runBash.deniedCommands', 'sudo'), undefined);
    assert.equal(locateSetting(TEXT, 'toolbelt.tools.sensitiveFiles'), undefined);
    assert.equal(locateSetting('not json at all', 'x'), undefined);
    assert.equal(lineOf('a\nb\nc', 4), 3);
  });
});

describe('policyDecision: the decision in words, from the consent plan', () => {
  const registry = (plan: Partial<ConsentPlan> | Error) => ({
    hasTool: (name: string) => name !== 'missing',
    consent: async (tool: string): Promise<ConsentPlan> => {
      if (plan instanceof Error) throw plan;
      return { tool, questions: [], changes: [], prepared: undefined, ...plan };
    },
  });

  it('deny, ask and allow carry their reason and rule', async () => {
    const denied = await decideCall(registry({ refusal: 'no', refusedBy: { setting: 's', entry: 'e' } }), 't', {});
    assert.deepEqual([denied.verdict, denied.reason, describeRule(denied.rule)], ['deny', 'no', 's "e"']);
    const asked = await decideCall(registry({ questions: [{ reason: 'protected', summary: 'Write x', declined: '', rule: { builtin: 'b' } }] }), 't', {});
    assert.deepEqual([asked.verdict, asked.reason, describeRule(asked.rule)], ['ask', 'Write x (protected)', 'built-in rule: b']);
    const allowed = await decideCall(registry({ allowedByRule: 'a rule', allowedBy: { choice: 'c' } }), 't', {});
    assert.deepEqual([allowed.verdict, allowed.reason, describeRule(allowed.rule)], ['allow', 'allowed by a rule', "the person's choice: c"]);
  });

  it('a call that cannot run is deny: a missing tool, a refused path, bad arguments', async () => {
    const missing = await decideCall(registry({}), 'missing', {});
    assert.deepEqual([missing.verdict, describeRule(missing.rule)], ['deny', 'toolbelt.tools.registry']);
    const refused = await decideCall(registry(new ToolRefusedError('switched off')), 't', {});
    assert.deepEqual([refused.verdict, refused.reason], ['deny', 'switched off']);
    const broken = await decideCall(registry(new Error('path is empty')), 't', {});
    assert.deepEqual([broken.verdict, broken.reason], ['deny', 'the call cannot run: path is empty']);
  });
});
