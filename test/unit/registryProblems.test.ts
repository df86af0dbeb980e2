import * as assert from 'node:assert/strict';
import { ASKS_EACH_TIME, asksEachTime, riskLook, runsCommands } from '../../src/vscode/riskIcons';
import { locateProblems, parseProblem, plainProblem, ProblemToastGate, problemToast, type RegistryProblems } from '../../src/vscode/sources/registryProblems';
import { addEntries, registryPath } from '../../src/vscode/sources/settingsText';
import { BUILTIN_MANIFEST, findBuiltin } from '../../src/tools/manifest';
import { FakeScheduler } from '../support/fakeScheduler';

const SETTINGS = `{
  // tools
  "toolbelt.tools.registry": [
    { "name": "calculator" },
    { "name": "teleport" },
    { "name": "write_file", "type": "builtin" },
    "read_file",
    { "name": "calculator" },
    42
  ]
}
`;

const PROBLEMS: RegistryProblems = {
  errors: [
    'toolbelt.tools.registry[4]: Tool "calculator" is already registered by toolbelt.tools.registry[0]; this duplicate was rejected and the first entry stays.',
    'toolbelt.tools.registry[5] must be an object like {"name": "calculator"}, but it is a number (42); it was skipped.',
  ],
  warnings: [
    'toolbelt.tools.registry[1]: unknown tool "teleport" (did you mean "calculator"?); it was skipped.',
    'toolbelt.tools.registry[2] ("write_file"): "type" is deprecated and ignored; Toolbelt\'s manifest defines the tool. Write {"name": "write_file"} (plus an optional "description").',
    'toolbelt.tools.registry[3]: write "read_file" as {"name": "read_file"}; it was read that way.',
  ],
};

const textAt = (text: string, range: { offset: number; length: number }) => text.slice(range.offset, range.offset + range.length);

describe('Settings problems, calmly', () => {
  it('places each problem on the entry it is about', () => {
    const located = locateProblems(SETTINGS, PROBLEMS);
    assert.deepEqual(
      located.map((p) => [p.severity, textAt(SETTINGS, p)]),
      [
        ['error', '"name": "calculator"'],
        ['error', '42'],
        ['warning', '"name": "teleport"'],
        ['warning', '"name": "write_file"'],
        ['warning', '"read_file"'],
      ],
    );
    assert.equal(SETTINGS.slice(0, located[0].offset).split('\n').length, 8, 'the duplicate, not the first entry');
  });

  it('places a problem about the whole setting on its key, and one that names a tool on its entry', () => {
    const notArray = '{\n  "toolbelt.tools.registry": {"name": "x"}\n}\n';
    const [whole] = locateProblems(notArray, { errors: ['toolbelt.tools.registry must be an array of {"name": "<tool>"} entries, but it is an object; no tools are active.'], warnings: [] });
    assert.equal(textAt(notArray, whole), '"toolbelt.tools.registry"');
    const [locked] = locateProblems(SETTINGS, { errors: [], warnings: ['"write_file" can change files or run programs, so it cannot be enabled until you trust this workspace.'] });
    assert.equal(textAt(SETTINGS, locked), '"name": "write_file"');
    assert.deepEqual(locateProblems('{}', PROBLEMS), [], 'a file without the registry has none of its problems');
  });

  it('finds the registry under "settings" in a .code-workspace file', () => {
    const workspace = '{ "folders": [], "settings": { "toolbelt.tools.registry": [{ "name": "nope" }] } }';
    const [problem] = locateProblems(workspace, { errors: [], warnings: ['toolbelt.tools.registry[0]: unknown tool "nope"; it was skipped.'] }, registryPath(true));
    assert.equal(textAt(workspace, problem), '"name": "nope"');
  });

  it('says the problems in plain words', () => {
    assert.deepEqual(parseProblem(PROBLEMS.warnings[1]), { index: 2, name: 'write_file', rest: PROBLEMS.warnings[1].slice('toolbelt.tools.registry[2] ("write_file"): '.length) });
    assert.match(plainProblem(PROBLEMS.warnings[1]), /^"write_file" in the tool settings: "type" is deprecated and ignored/);
    assert.equal(plainProblem(PROBLEMS.warnings[0]), 'Entry 2 of the tool settings: unknown tool "teleport" (did you mean "calculator"?); it was skipped.');
    assert.match(plainProblem(PROBLEMS.errors[0]), /already registered by entry 1;/);
    assert.equal(plainProblem(PROBLEMS.errors[1]), 'Entry 6 of the tool settings must be an object like {"name": "calculator"}, but it is a number (42); it was skipped.');
    assert.equal(
      problemToast({ errors: [], warnings: [PROBLEMS.warnings[1]] }, "this workspace's"),
      'Toolbelt: "write_file" in this workspace\'s tool settings: "type" is deprecated and ignored; Toolbelt\'s manifest defines the tool. Write {"name": "write_file"} (plus an optional "description").',
    );
    assert.match(problemToast(PROBLEMS, "this workspace's"), /^Toolbelt: 5 problems in this workspace's tool settings \(toolbelt\.tools\.registry\)\. The first: Entry 5 of this workspace's tool settings: Tool "calculator" is already registered/);
    for (const message of [...PROBLEMS.errors, ...PROBLEMS.warnings]) assert.doesNotMatch(plainProblem(message), /toolbelt\.tools\.registry\[/);
  });

  it('shows one toast per real change, once the typing has stopped', async () => {
    const scheduler = new FakeScheduler();
    const shown: RegistryProblems[] = [];
    const gate = new ProblemToastGate(scheduler, 1500, (p) => shown.push(p));
    const unknown = (name: string, index = 1): RegistryProblems => ({ errors: [], warnings: [`toolbelt.tools.registry[${index}]: unknown tool "${name}"; it was skipped.`] });

    // Auto-save while typing "teleport": every save is a different problem, none lasts.
    for (const partial of ['t', 'te', 'tel', 'tele', 'telep']) {
      gate.update(unknown(partial));
      await scheduler.advance(500);
    }
    assert.equal(shown.length, 0, 'nothing while the text keeps changing');
    gate.update(unknown('teleport'));
    await scheduler.advance(1499);
    assert.equal(shown.length, 0);
    await scheduler.advance(1);
    assert.deepEqual(shown, [unknown('teleport')]);

    gate.update(unknown('teleport'));
    gate.update(unknown('teleport', 4));
    await scheduler.advance(5000);
    assert.equal(shown.length, 1, 'the same problem again (even moved to another entry) is not news');

    gate.update(unknown('tel'));
    await scheduler.advance(200);
    gate.update({ errors: [], warnings: [] });
    await scheduler.advance(5000);
    assert.equal(shown.length, 1, 'a problem fixed before the quiet period ends is never shown');

    gate.update(unknown('teleport'));
    await scheduler.advance(1500);
    assert.equal(shown.length, 2, 'after a fix, the same problem coming back is news again');
    assert.equal(scheduler.pending, 0);
  });

  it('adds an entry in the one-line style the file uses, and one-line entries to an empty or new registry', () => {
    const oneLine = '{\n  "toolbelt.tools.registry": [\n    { "name": "calculator" },\n    { "name": "read_file" }\n  ]\n}\n';
    assert.equal(addEntries(oneLine, ['run_bash']), '{\n  "toolbelt.tools.registry": [\n    { "name": "calculator" },\n    { "name": "read_file" },\n    { "name": "run_bash" }\n  ]\n}\n');
    const compact = '{\n  "toolbelt.tools.registry": [{"name":"calculator"}, {"name":"read_file"}]\n}\n';
    assert.equal(addEntries(compact, ['remove']), '{\n  "toolbelt.tools.registry": [{"name":"calculator"}, {"name":"read_file"}, {"name":"remove"}]\n}\n');
    assert.equal(addEntries('{\n  "toolbelt.tools.registry": []\n}\n', ['run_bash']), '{\n  "toolbelt.tools.registry": [\n    { "name": "run_bash" }\n  ]\n}\n');
    assert.equal(addEntries('{\n\t"editor.tabSize": 4\n}\n', ['mkdir', 'move']), '{\n\t"toolbelt.tools.registry": [\n\t\t{ "name": "mkdir" },\n\t\t{ "name": "move" }\n\t],\n\t"editor.tabSize": 4\n}\n');
    assert.equal(
      addEntries('{}', ['x'], registryPath(false), [{ name: 'calculator', description: 'Sums' }]),
      '{\n  "toolbelt.tools.registry": [\n    { "name": "calculator", "description": "Sums" },\n    { "name": "x" }\n  ]\n}',
    );
  });
});

describe('Risk at a glance', () => {
  it('gives delete and run icons of their own, apart from write and read', () => {
    const icons = Object.fromEntries(BUILTIN_MANIFEST.map((tool) => [tool.name, riskLook(tool).icon]));
    assert.equal(icons.remove, 'trash');
    assert.equal(icons.run_bash, 'terminal');
    assert.equal(icons.write_file, 'edit');
    assert.equal(icons.mkdir, 'edit');
    assert.equal(icons.read_file, 'eye');
    assert.equal(new Set([icons.remove, icons.run_bash, icons.write_file, icons.read_file]).size, 4);
  });

  it('marks the tools that ask each time, and the ones that run commands', () => {
    const asking = BUILTIN_MANIFEST.filter(asksEachTime).map((tool) => tool.name);
    assert.deepEqual(asking.sort(), ['remove', 'run_bash']);
    assert.equal(ASKS_EACH_TIME, 'asks each time');
    assert.deepEqual(BUILTIN_MANIFEST.filter(runsCommands).map((tool) => tool.name), ['run_bash']);
    assert.equal(runsCommands(findBuiltin('remove')!), false);
  });
});
