import * as assert from 'node:assert/strict';
import { toSourceCallResult } from '../../src/tools/mcp/callResult';

describe('MCP call results as text for the model', () => {
  it('describes blobs and unknown parts, and says when there is no content', () => {
    const result = toSourceCallResult(
      {
        content: [
          { type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/octet-stream', blob: Buffer.alloc(3 * 1024 * 1024).toString('base64') } },
          { type: 'hologram' },
        ],
      },
      1000,
    );
    assert.deepEqual(result, { text: '[resource: file:///a.bin, application/octet-stream, 3.0 MB]\n[hologram content, not shown]', isError: false });
    assert.deepEqual(toSourceCallResult({ content: [] }, 1000), { text: '(the tool returned no content)', isError: false });
    assert.deepEqual(toSourceCallResult({ content: [], isError: true }, 1000), { text: '(the tool returned no content)', isError: true });
  });

  it('prefers text over structuredContent, and reads old toolResult answers', () => {
    assert.equal(toSourceCallResult({ content: [{ type: 'text', text: 'sum is 3' }], structuredContent: { sum: 3 } }, 1000).text, 'sum is 3');
    assert.equal(toSourceCallResult({ content: [{ type: 'image', mimeType: 'image/png', data: 'AAAA' }], structuredContent: { n: 1 } }, 1000).text, '[image: image/png, 3 B]\n{\n  "n": 1\n}');
    assert.equal(toSourceCallResult({ toolResult: { ok: true } }, 1000).text, '{\n  "ok": true\n}');
  });

  it('caps the text with a notice that counts what was left out', () => {
    assert.equal(toSourceCallResult({ content: [{ type: 'text', text: 'abcdefghij' }] }, 4).text, 'abcd\n[Output truncated: showing 4 of 10 characters.]');
  });
});
