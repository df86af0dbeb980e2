import * as assert from 'node:assert/strict';
import { cutNotice } from '../../src/tools/mcp/boundedJson';
import { toSourceCallResult } from '../../src/tools/mcp/callResult';
import { CUT_META_KEY } from '../../src/tools/mcp/messageReader';

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

  it('caps the text with a notice that counts what was left out, the notice within the cap', () => {
    const { text } = toSourceCallResult({ content: [{ type: 'text', text: 'a'.repeat(5000) }] }, 100);
    assert.equal(text, `${'a'.repeat(48)}\n[Output truncated: showing 48 of 5,000 characters.]`);
    assert.equal(text.length, 100);
    assert.equal(toSourceCallResult({ content: [{ type: 'text', text: 'a'.repeat(100) }] }, 100).text, 'a'.repeat(100), 'what fits is whole');
  });

  it('says how large the message was when it was cut on arrival (result._meta["toolbelt/cut"])', () => {
    const cut = { bytes: 52_428_900, strings: 1, items: 0, deep: 0 };
    const { text } = toSourceCallResult({ content: [{ type: 'text', text: 'x'.repeat(262_144) }], _meta: { [CUT_META_KEY]: cut } }, 30_000);
    assert.equal(text.length <= 30_000, true);
    assert.match(text, /^x+\n\[Output truncated: the server sent 52,428,900 bytes; the first 29,9\d\d characters are shown\.\]$/);
    const small = toSourceCallResult({ content: [{ type: 'text', text: 'kept' }], _meta: { [CUT_META_KEY]: { ...cut, strings: 0, items: 10 } } }, 30_000);
    assert.equal(small.text, 'kept\n[Output truncated: the server sent 52,428,900 bytes; Toolbelt kept part of it.]');
  });

  it('sizes an image cut on arrival by its length before the cut', () => {
    const data = `${'A'.repeat(1000)}${cutNotice(4 * 1024 * 1024)}`;
    assert.equal(toSourceCallResult({ content: [{ type: 'image', mimeType: 'image/png', data }] }, 1000).text, '[image: image/png, 3.0 MB]');
  });
});
