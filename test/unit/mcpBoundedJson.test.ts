import * as assert from 'node:assert/strict';
import { BoundedJsonParser, cutNotice, NESTED_TOO_DEEP, originalLength, type BoundedJsonLimits } from '../../src/tools/mcp/boundedJson';
import { CUT_META_KEY, MessageReader, type MessageCut } from '../../src/tools/mcp/messageReader';

const ROOMY: BoundedJsonLimits = { stringChars: 1_000_000, keptChars: 10_000_000, depth: 1000 };

/** Parses `text` fed in pieces of the given sizes (cycled). */
function parseInPieces(text: string, sizes: number[], limits = ROOMY): { value: unknown; parser: BoundedJsonParser } {
  const parser = new BoundedJsonParser(limits);
  let at = 0;
  for (let i = 0; at < text.length; i++) {
    const size = sizes[i % sizes.length];
    parser.write(text.slice(at, at + size));
    at += size;
  }
  return { value: parser.end(), parser };
}

const SAMPLES = [
  '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}],"isError":false}}',
  '{"a":[1,-2.5,3e10,-0.0001E-3,true,false,null,"x"],"b":{},"c":[],"d":[[],[{}]],"e":""}',
  String.raw`{"esc":"quote \" slash \\ \/ \b\f\n\r\t","u":"\u00e9\u4e2d\ud83d\ude00","k\u0041":1}`,
  '  [ 1 , "two" , { "three" : [ 3 ] } ]  ',
  '"just a string"',
  '-12.75e+2',
  '{"__proto__":{"polluted":true},"constructor":{"prototype":1}}',
];

describe('BoundedJsonParser', () => {
  it('reads what JSON.parse reads, however the text is split', () => {
    for (const sample of SAMPLES) {
      for (const sizes of [[1], [2, 3], [7], [1000]]) {
        assert.deepEqual(parseInPieces(sample, sizes).value, JSON.parse(sample), `${sample} in pieces of ${sizes}`);
      }
    }
  });

  it('keeps "__proto__" as a key, never as a prototype', () => {
    const { value } = parseInPieces(SAMPLES[6], [3]);
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.deepEqual(Object.keys(value as object), ['__proto__', 'constructor']);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  });

  it('cuts a long string, saying how long it was, and counts it', () => {
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'é'.repeat(100_000) } });
    const { value, parser } = parseInPieces(text, [4096], { ...ROOMY, stringChars: 10 });
    const kept = (value as { result: { text: string } }).result.text;
    assert.equal(kept, `${'é'.repeat(10)}${cutNotice(100_000)}`);
    assert.equal(originalLength(kept), 100_000);
    assert.deepEqual(parser.cuts, { strings: 1, items: 0, deep: 0 });
  });

  it('past the budget leaves items out but keeps the message’s own members (an id after a huge result still answers)', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ type: 'text', text: `part ${i}` }));
    const text = JSON.stringify({ result: { content: items }, jsonrpc: '2.0', id: 'call-9' });
    const { value, parser } = parseInPieces(text, [333], { ...ROOMY, keptChars: 2000 });
    const message = value as { jsonrpc: string; id: string; result: { content: unknown[] } };
    assert.equal(message.id, 'call-9');
    assert.equal(message.jsonrpc, '2.0');
    assert.ok(message.result.content.length > 10 && message.result.content.length < 300, `${message.result.content.length} items kept`);
    assert.equal(parser.cuts.items, 10_000 - message.result.content.length);
  });

  it('replaces containers past the depth with a notice, without recursion', () => {
    const depth = 100_000;
    const text = `{"jsonrpc":"2.0","id":1,"result":{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    const { value, parser } = parseInPieces(text, [65_536], { ...ROOMY, depth: 5 });
    let node: unknown = (value as { result: { deep: unknown } }).result.deep;
    let levels = 0;
    while (Array.isArray(node)) {
      node = node[0];
      levels++;
    }
    assert.equal(node, NESTED_TOO_DEEP);
    assert.equal(levels, 3, 'depth 5: the message, its result and three levels of arrays');
    assert.equal(parser.cuts.deep, 1);
  });

  it('rejects what is not JSON, and text that ends early', () => {
    for (const bad of ['{"a" 1}', '[1,]x', '{"a":tru e}', '{"a":"\\x"}', '[01]', '{} {}', 'nope']) {
      assert.throws(() => parseInPieces(bad, [2]), SyntaxError, bad);
    }
    assert.throws(() => parseInPieces('{"a":[1,2', [3]), /ended before/);
  });
});

describe('MessageReader', () => {
  function reader(maxMessageBytes: number, stringChars = 1000, keptChars = Math.max(maxMessageBytes, 4096)) {
    const got: { messages: unknown[]; malformed: string[]; cuts: MessageCut[] } = { messages: [], malformed: [], cuts: [] };
    const r = new MessageReader(
      { maxMessageBytes, oversized: { stringChars, keptChars, depth: 64 } },
      { message: (m) => got.messages.push(m), malformed: (l) => got.malformed.push(l), oversized: (c) => got.cuts.push(c) },
    );
    return { r, got };
  }

  it('splits lines across chunks and parses small ones whole', () => {
    const { r, got } = reader(1024);
    const text = '{"jsonrpc":"2.0","id":1,"result":{}}\n  \nnot json\n{"jsonrpc":"2.0","method":"x"}\n';
    for (const ch of Buffer.from(text)) r.push(Buffer.from([ch]));
    assert.deepEqual(got.messages, [{ jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', method: 'x' }]);
    assert.deepEqual(got.malformed, ['not json']);
  });

  it('reads a 50 MB message as it arrives: cut, said so in result._meta, the next message unaffected', () => {
    const { r, got } = reader(64 * 1024, 5000);
    r.push(Buffer.from('{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"'));
    const block = Buffer.alloc(64 * 1024, 'x');
    for (let sent = 0; sent < 50 * 1024 * 1024; sent += block.length) r.push(block);
    r.push(Buffer.from('"}]}}\n{"jsonrpc":"2.0","id":4,"result":{"content":[]}}\n'));
    assert.equal(got.messages.length, 2);
    const [cut, next] = got.messages as { id: number; result: { content: { text: string }[]; _meta?: Record<string, unknown> } }[];
    assert.equal(cut.id, 3);
    assert.equal(cut.result.content[0].text, `${'x'.repeat(5000)}${cutNotice(50 * 1024 * 1024)}`);
    const meta = cut.result._meta?.[CUT_META_KEY] as MessageCut;
    assert.equal(meta.strings, 1);
    assert.ok(meta.bytes > 50 * 1024 * 1024);
    assert.deepEqual(got.cuts, [meta]);
    assert.deepEqual(next, { jsonrpc: '2.0', id: 4, result: { content: [] } });
  });

  it('keeps a multi-byte character split between chunks whole in an oversized message', () => {
    const { r, got } = reader(16, 100_000);
    const bytes = Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"t":"${'中'.repeat(50)}"}}\n`);
    for (let i = 0; i < bytes.length; i += 5) r.push(bytes.subarray(i, i + 5));
    assert.equal((got.messages[0] as { result: { t: string } }).result.t, '中'.repeat(50));
  });

  it('reports an oversized line that is not JSON by its start and size', () => {
    const { r, got } = reader(1024);
    r.push(Buffer.from(`log: ${'z'.repeat(5000)}\n`));
    assert.equal(got.messages.length, 0);
    assert.equal(got.malformed.length, 1);
    assert.match(got.malformed[0], /^log: z+… \(5005 bytes\)$/);
    assert.ok(got.malformed[0].length < 250);
  });

  it('stops at the chunk that takes a line past stopMessageBytes, newline or not, and reads nothing after it', () => {
    const stops: number[] = [];
    const messages: unknown[] = [];
    const r = new MessageReader(
      { maxMessageBytes: 1024, stopMessageBytes: 4096, oversized: { stringChars: 100, keptChars: 1024, depth: 8 } },
      { message: (m) => messages.push(m), malformed: () => undefined, overLimit: (bytes) => stops.push(bytes) },
    );
    r.push(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","method":"x","params":{"t":"'));
    r.push(Buffer.alloc(3000, 'x'));
    assert.deepEqual(stops, [], 'under the limit it is read on');
    r.push(Buffer.alloc(3000, 'x'));
    assert.equal(stops.length, 1);
    assert.ok(stops[0] > 4096 && stops[0] < 7000, String(stops[0]));
    r.push(Buffer.from('"}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n'));
    assert.deepEqual(stops.length, 1);
    assert.deepEqual(messages, [{ jsonrpc: '2.0', id: 1, result: {} }], 'nothing after the limit is delivered');
  });

  it('drops a server’s own claim that Toolbelt cut its message', () => {
    const { r, got } = reader(1024);
    r.push(Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"_meta":{"${CUT_META_KEY}":{"bytes":1},"other":1}}}\n`));
    assert.deepEqual(got.messages, [{ jsonrpc: '2.0', id: 1, result: { _meta: { other: 1 } } }]);
  });
});
