import { openWorkbenches } from './workbench';

/** Mocha root hooks: a failed browser test leaves a screenshot of every open workbench. */
export const mochaHooks = {
  async afterEach(this: Mocha.Context): Promise<void> {
    const test = this.currentTest;
    if (test?.state !== 'failed') return;
    const name = test.fullTitle().replace(/[^a-z0-9]+/gi, '-').slice(0, 80);
    let index = 0;
    for (const workbench of openWorkbenches) {
      const file = await workbench.screenshot(`FAILED-${name}-${index++}`).catch(() => undefined);
      if (file) console.log(`    screenshot: ${file}`);
    }
  },
};
