import * as assert from 'node:assert/strict';
import { ProviderError } from '../../src/providers/errors';
import { lineChunks, SseParser, type SseEvent } from '../../src/providers/sseReader';

function parseAll(pieces: string[]): SseEvent[] {
  const parser = new SseParser();
  const events = pieces.flatMap((piece) => parser.feed(piece));
  parser.end();
  return events;
}

function streamOf(parts: Uint8Array[], onCancel?: () => void): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (index < parts.length) controller.enqueue(parts[index++]);
      // After the parts, the stream stays open: only cancel() ends it.
    },
    cancel() {
      onCancel?.();
    },
  });
}

describe('SseParser (the OpenAI stream reader)', () => {
  it('reads events, their names, multi-line data, and skips comments and other fields', () => {
    const events = parseAll([': keep-alive\n', 'id: 7\nretry: 10\ndata: {"a":1}\n\n', 'event: ping\ndata:x\ndata: y\n\n', 'data: [DONE]\n\n']);
    assert.deepEqual(events, [
      { event: null, data: '{"a":1}' },
      { event: 'ping', data: 'x\ny' },
      { event: null, data: '[DONE]' },
    ]);
  });

  it('accepts \\r\\n and \\r line endings, also when \\r\\n is split between two feeds', () => {
    assert.deepEqual(parseAll(['data: one\r\n\r\ndata: two\r\rdata: three\r', '\n\r', '\n']), [
      { event: null, data: 'one' },
      { event: null, data: 'two' },
      { event: null, data: 'three' },
    ]);
  });

  it('joins a line cut across feeds, and keeps characters past the first colon', () => {
    assert.deepEqual(parseAll(['da', 'ta: {"t":"a:b', '"}', '\n', '\n']), [{ event: null, data: '{"t":"a:b"}' }]);
  });

  it('drops an event whose closing blank line never came, and blank lines without data', () => {
    assert.deepEqual(parseAll(['\n\nevent: x\n\n', 'data: cut off\n']), []);
  });
});

describe('lineChunks', () => {
  it('hands a plain body over in whole lines', async () => {
    const encoder = new TextEncoder();
    const chunks = lineChunks(streamOf([encoder.encode('data: a'), encoder.encode('bc\ndata: d'), encoder.encode('\n\n')]), 'openai');
    const seen: string[] = [];
    for (let i = 0; i < 2; i++) seen.push(new TextDecoder().decode(await chunks.next()));
    assert.deepEqual(seen, ['data: abc\n', 'data: d\n\n']);
    chunks.cancel();
  });

  it('cancel() ends a pending read at once and stops the download', async () => {
    let cancelled = false;
    const chunks = lineChunks(streamOf([], () => (cancelled = true)), 'openai');
    const pending = chunks.next();
    chunks.cancel();
    assert.equal(await pending, undefined);
    assert.equal(cancelled, true);
    assert.equal(await chunks.next(), undefined);
  });

  it('a plain body with one line past the limit fails with a protocol error', async () => {
    const huge = new Uint8Array(17 * 1024 * 1024).fill(0x61);
    const chunks = lineChunks(streamOf([huge]), 'openai');
    await assert.rejects(chunks.next(), (error: unknown) => error instanceof ProviderError && error.kind === 'protocol');
  });

  it('an async-iterable body (guardedFetch) is cancelled through its return()', async () => {
    let returned = false;
    const body: AsyncIterableIterator<Uint8Array> = {
      [Symbol.asyncIterator]() {
        return this;
      },
      next: () => new Promise<IteratorResult<Uint8Array>>(() => undefined),
      return: () => {
        returned = true;
        return Promise.resolve({ done: true, value: undefined });
      },
    };
    const chunks = lineChunks(body, 'openai');
    void chunks.next();
    chunks.cancel();
    assert.equal(returned, true);
    assert.equal(await chunks.next(), undefined);
  });
});
