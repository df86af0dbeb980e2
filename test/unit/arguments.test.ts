import * as assert from 'node:assert/strict';
import { validateArguments } from '../../src/tools/arguments';
import { findBuiltin } from '../../src/tools/manifest';

describe('tool argument validation', () => {
  const readFile = findBuiltin('read_file')!.parameters;
  const search = findBuiltin('search_text')!.parameters;

  it('passes valid arguments through and drops unknown ones', () => {
    assert.deepEqual(validateArguments('read_file', readFile, { path: 'a.txt', offset: 3, junk: true }), { path: 'a.txt', offset: 3 });
  });

  it('accepts numbers and booleans written as strings (small models do that)', () => {
    assert.deepEqual(validateArguments('read_file', readFile, { path: 'a', offset: '2', limit: '10' }), { path: 'a', offset: 2, limit: 10 });
    assert.deepEqual(validateArguments('search_text', search, { pattern: 'x', isRegex: 'true' }), { pattern: 'x', isRegex: true });
  });

  it('names every problem in one message', () => {
    assert.throws(
      () => validateArguments('read_file', readFile, { offset: 0, limit: 1.5, encoding: 'klingon' }),
      (error: Error) => {
        assert.match(error.message, /^Invalid arguments for read_file: /);
        assert.match(error.message, /"path" is required/);
        assert.match(error.message, /"offset" must be ≥ 1, got 0/);
        assert.match(error.message, /"limit" must be a whole number/);
        assert.match(error.message, /"encoding" must be one of/);
        return true;
      },
    );
  });

  it('rejects wrong types and non-object arguments', () => {
    assert.throws(() => validateArguments('search_text', search, { pattern: 'x', isRegex: 'yes' }), /"isRegex" must be true or false/);
    assert.throws(() => validateArguments('read_file', readFile, { path: {} }), /"path" must be a string, got an object/);
    assert.throws(() => validateArguments('read_file', readFile, { path: '' }), /"path" must not be empty/);
    assert.throws(() => validateArguments('read_file', readFile, ['a.txt']), /expected a JSON object, got an array/);
    assert.throws(() => validateArguments('read_file', readFile, 'a.txt'), /expected a JSON object/);
  });

  it('treats missing arguments as an empty object', () => {
    assert.deepEqual(validateArguments('list_dir', findBuiltin('list_dir')!.parameters, undefined), {});
  });
});
