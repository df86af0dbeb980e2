import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProviderError } from '../../src/providers/errors';
import { guardedFetch, MAX_SSE_LINE_BYTES } from '../../src/providers/httpBody';

/** A server that answers with `parts`, written one by one (each a separate chunk on the wire). */
async function serve(status: number, contentType: string, parts: (string | Buffer)[]): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (_req, res) => {
    res.writeHead(status, { 'content-type': contentType });
    for (const part of parts) {
      res.write(part);
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function chunksOf(body: unknown): Promise<string[]> {
  const chunks: string[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk).toString('utf8'));
  return chunks;
}

describe('guardedFetch (the OpenAI SDK fetch)', () => {
  it('hands on an event stream in pieces that end at line breaks, with status and headers, and nothing else of the original', async () => {
    const server = await serve(200, 'text/event-stream', ['data: {"a"', ':1}\n\ndata: {"b":2}\n', '\ndata: [DO', 'NE]\n\n']);
    try {
      const response = await guardedFetch('openai', 5000)(server.url);
      assert.equal(response.status, 200);
      assert.equal(response.ok, true);
      assert.equal(response.headers.get('content-type'), 'text/event-stream');
      // The unguarded body cannot be read around the line guard.
      assert.equal((response as unknown as { text?: unknown }).text, undefined);
      const chunks = await chunksOf(response.body);
      assert.ok(chunks.every((chunk) => chunk.endsWith('\n')), JSON.stringify(chunks));
      assert.equal(chunks.join(''), 'data: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\n');
    } finally {
      await server.close();
    }
  });

  it(`stops an event stream with a line longer than ${MAX_SSE_LINE_BYTES / 1024 / 1024} MB`, async () => {
    const piece = Buffer.alloc(1024 * 1024, 0x61);
    const server = await serve(200, 'text/event-stream', ['data: ', ...Array.from({ length: MAX_SSE_LINE_BYTES / piece.length + 2 }, () => piece), '\n\n']);
    try {
      const response = await guardedFetch('openai', 5000)(server.url);
      await assert.rejects(chunksOf(response.body), (error: unknown) => error instanceof ProviderError && /one line longer than 16 MB/.test(error.message));
    } finally {
      await server.close();
    }
  });

  it('cuts an error body to a bounded prefix, as a real Response', async () => {
    const server = await serve(500, 'application/json', ['{"error":{"message":"', 'x'.repeat(200_000), '"}}']);
    try {
      const response = await guardedFetch('openai', 5000)(server.url);
      assert.equal(response.status, 500);
      const text = await response.text();
      assert.ok(text.length < 200_000 && text.startsWith('{"error"'), `${text.length} characters`);
    } finally {
      await server.close();
    }
  });
});
