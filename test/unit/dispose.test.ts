import * as assert from 'node:assert/strict';
import { Disposables, DisposableStore } from '../../src/vscode/dispose';

class Owner extends Disposables {
  own(item: { dispose(): unknown }) {
    return this.register(item);
  }
}

describe('Disposables: listener ownership in one place', () => {
  it('disposes what it owns once, newest first, and keeps going when one throws', () => {
    const order: string[] = [];
    const owner = new Owner();
    owner.own({ dispose: () => order.push('first') });
    owner.own({ dispose: () => { throw new Error('broken listener'); } });
    owner.own({ dispose: () => order.push('third') });
    const logged = console.error;
    console.error = () => undefined;
    try {
      owner.dispose();
      owner.dispose();
    } finally {
      console.error = logged;
    }
    assert.deepEqual(order, ['third', 'first']);
  });

  it('disposes at once what is registered after it was disposed', () => {
    const owner = new Owner();
    owner.dispose();
    let disposed = false;
    owner.own({ dispose: () => (disposed = true) });
    assert.equal(disposed, true);
  });

  it('a store empties and fills again', () => {
    const store = new DisposableStore();
    const seen: number[] = [];
    store.add({ dispose: () => seen.push(1) });
    store.clear();
    store.add({ dispose: () => seen.push(2) });
    store.dispose();
    assert.deepEqual(seen, [1, 2]);
  });
});
