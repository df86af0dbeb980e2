import * as assert from 'node:assert/strict';
import { nameSuggestions, nameValueAt, nearNameFix, registeredNames } from '../../src/vscode/sources/registryCompletion';
import { locateProblems } from '../../src/vscode/sources/registryProblems';

const SETTINGS = `{
  "toolbelt.tools.registry": [
    { "name": "read_file" },
    { "name": "tickets/lookup_ticket" },
    { "name": "serch_text" },
    { "name": "tic" }
  ]
}
`;

describe('Writing toolbelt.tools.registry by hand', () => {
  it('knows when the cursor is in an entry\'s "name" value, and what is typed so far', () => {
    const offset = SETTINGS.indexOf('"tic"') + 4;
    const at = nameValueAt(SETTINGS, offset);
    assert.deepEqual(at, { range: { offset: SETTINGS.indexOf('"tic"') + 1, length: 3 }, typed: 'tic' });
    assert.equal(nameValueAt(SETTINGS, SETTINGS.indexOf('"name"') + 2), undefined, 'on the key, not the value');
    assert.equal(nameValueAt('{ "toolbelt.model": "gp" }', 22), undefined, 'another setting');
    const workspaceFile = '{ "settings": { "toolbelt.tools.registry": [ { "name": "x" } ] } }';
    assert.equal(nameValueAt(workspaceFile, workspaceFile.indexOf('"x"') + 2, true)?.typed, 'x');
  });

  it('offers MCP and extension tools and each server\'s "/*", not the builtins (the schema has them) nor names already registered', () => {
    const available = [{ name: 'read_file' }, { name: 'tickets/lookup_ticket' }, { name: 'tickets/close_ticket' }, { name: 'githubIssues' }];
    const names = nameSuggestions(available, ['tickets'], registeredNames(SETTINGS));
    assert.deepEqual(names, ['tickets/*', 'tickets/close_ticket', 'githubIssues']);
  });

  it('fixes a near name in one step: "serch_text" becomes "search_text"', () => {
    const [located] = locateProblems(SETTINGS, { errors: [], warnings: ['toolbelt.tools.registry[2]: unknown tool "serch_text" (did you mean "search_text"?); it was skipped.'] });
    const fix = nearNameFix(SETTINGS, located, located.message);
    assert.ok(fix);
    assert.equal(fix.hint, 'search_text');
    const fixed = SETTINGS.slice(0, fix.offset) + fix.content + SETTINGS.slice(fix.offset + fix.length);
    assert.equal(fixed, SETTINGS.replace('"serch_text"', '"search_text"'));
    assert.equal(nearNameFix(SETTINGS, located, 'unknown tool "serch_text"; it was skipped.'), undefined, 'no hint, no fix');
  });
});
