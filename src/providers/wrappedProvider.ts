import type { ChatProvider, ChatRequest, ProviderEvent } from './types';

/** A provider that changes how requests reach another one; it is that one to everyone else. */
export abstract class WrappedProvider implements ChatProvider {
  constructor(protected readonly inner: ChatProvider) {}

  get name(): string {
    return this.inner.name;
  }

  get model(): string {
    return this.inner.model;
  }

  get limits(): ChatProvider['limits'] {
    const inner = this.inner;
    return inner.limits ? (signal) => inner.limits!(signal) : undefined;
  }

  abstract stream(request: ChatRequest): AsyncIterable<ProviderEvent>;
}
