import * as assert from 'node:assert/strict';
import { callKey, canonicalJson } from '../../src/tools/canonicalJson';

describe('canonicalJson: the one meaning of "the same call"', () => {
  it('ignores key order at every level and leaves undefined members out, as JSON does', () => {
    assert.equal(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: undefined } }), '{"a":{"d":[1,{"x":1,"y":2}]},"b":1}');
    assert.equal(callKey('write_file', { path: 'a', content: 'x' }), callKey('write_file', { content: 'x', path: 'a', extra: undefined }));
    assert.notEqual(callKey('write_file', { path: 'a' }), callKey('write_file', { path: 'a', content: null }));
    assert.notEqual(callKey('read_file', { path: 'a' }), callKey('write_file', { path: 'a' }));
  });
});
