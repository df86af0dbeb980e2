import type * as http from 'node:http';

/**
 * The model lists of the scripted server: OpenAI-compatible `GET /v1/models`, Ollama's
 * `GET /api/tags` and Gemini's `GET /v1beta/models`, each settable and able to fail.
 */

export type ListFault =
  /** Answer with `status` and an error body. */
  | { kind: 'http'; status: number; message?: string }
  /** Send the headers, then nothing, keeping the connection open. */
  | { kind: 'stall' }
  /** A 200 whose body is not JSON. */
  | { kind: 'malformed' }
  /** A 200 whose body is `bytes` long (a list far larger than any real one). */
  | { kind: 'oversized'; bytes: number };

export type ListName = 'openai' | 'ollama' | 'gemini';

export class ModelListRoutes {
  /** What each list holds: model ids (Gemini's without the `models/` prefix). */
  readonly models: Record<ListName, string[]> = {
    openai: ['scripted-model'],
    ollama: ['scripted-ollama:latest', 'text-only:latest'],
    gemini: ['scripted-gemini'],
  };
  private readonly faults = new Map<ListName, ListFault>();
  /** Requests to the lists, with their headers (to check the key was sent). */
  readonly requests: { list: ListName; headers: http.IncomingHttpHeaders }[] = [];

  /** The next request to `list` (and every one after, until `clearFault`) fails this way. */
  fail(list: ListName, fault: ListFault): this {
    this.faults.set(list, fault);
    return this;
  }

  clearFault(list?: ListName): this {
    if (list) this.faults.delete(list);
    else this.faults.clear();
    return this;
  }

  /** Answers a model-list request; false when the request is not one. */
  handle(req: http.IncomingMessage, pathname: string, res: http.ServerResponse): boolean {
    if (req.method !== 'GET') return false;
    const list: ListName | undefined = pathname === '/v1/models' ? 'openai' : pathname === '/api/tags' ? 'ollama' : pathname === '/v1beta/models' ? 'gemini' : undefined;
    if (!list) return false;
    this.requests.push({ list, headers: req.headers });
    const fault = this.faults.get(list);
    if (fault) {
      answerFault(res, fault);
      return true;
    }
    const ids = this.models[list];
    const body =
      list === 'openai'
        ? { object: 'list', data: ids.map((id) => ({ id, object: 'model', owned_by: 'toolbelt-tests' })) }
        : list === 'ollama'
        ? { models: ids.map((name) => ({ name, model: name, size: 1 })) }
        : { models: ids.map((id) => ({ name: `models/${id}`, displayName: id, supportedGenerationMethods: ['generateContent'] })) };
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
    return true;
  }
}

function answerFault(res: http.ServerResponse, fault: ListFault): void {
  switch (fault.kind) {
    case 'http':
      res.writeHead(fault.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: fault.message ?? `Scripted HTTP ${fault.status}` } }));
      return;
    case 'stall':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      return; // nothing more, the connection stays open
    case 'malformed':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data": [ {"id": "cut-off"');
      return;
    case 'oversized': {
      res.writeHead(200, { 'content-type': 'application/json' });
      const piece = `{"id":"${'m'.repeat(1000)}"},`;
      res.write('{"data":[');
      let sent = 0;
      const pump = () => {
        while (sent < fault.bytes && !res.destroyed) {
          sent += piece.length;
          if (!res.write(piece)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end('{"id":"last"}]}');
      };
      pump();
      return;
    }
  }
}
