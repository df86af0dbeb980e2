import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { chromium, type Browser, type Frame, type Locator, type Page } from 'playwright-core';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const SCREENSHOTS = path.join(ROOT, 'test-results', 'screenshots');

interface Host {
  nodeBin: string;
  entry: string;
  chromium: string;
}
interface Server {
  url: string;
  port: number;
  extensionsDir: string;
  tail(lines?: number): string;
  stop(): Promise<void>;
}
interface HostLib {
  ensureHost(): Host;
  startCodeServer(host: Host, options: Record<string, unknown>): Promise<Server>;
  linkExtension(extensionsDir: string): string;
  copyWorkspace(source: string, name?: string): string;
  chromiumLaunchOptions(host: Host): Parameters<typeof chromium.launch>[0];
}
// scripts/lib/host.js is plain Node so `npm start` and the runners share it without a build.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const hostLib: HostLib = require(path.join(ROOT, 'scripts', 'lib', 'host.js'));

export interface WorkbenchOptions {
  /** .vscode/settings.json of the workspace copy. */
  workspaceSettings?: Record<string, unknown>;
  /** Leave workspace trust on, so the folder opens in restricted mode. */
  trust?: boolean;
  theme?: 'Default Dark Modern' | 'Default Light Modern';
  /** Extra user settings. */
  userSettings?: Record<string, unknown>;
  env?: Record<string, string>;
}

/** Quiet defaults shared with the integration runner: no welcome page, no built-in chat, no prompts. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { QUIET_USER_SETTINGS } = require(path.join(ROOT, 'scripts', 'lib', 'extensionHost.js')) as { QUIET_USER_SETTINGS: Record<string, unknown> };

/** Workbenches that are open now, so a failing test can leave a screenshot of each. */
export const openWorkbenches = new Set<Workbench>();

/** A real VS Code workbench (code-server) with Toolbelt installed, driven by headless Chromium. */
export class Workbench {
  private constructor(
    readonly server: Server,
    readonly browser: Browser,
    readonly page: Page,
    readonly workspace: string,
  ) {}

  static async start(options: WorkbenchOptions = {}): Promise<Workbench> {
    const host = hostLib.ensureHost();
    const workspace = hostLib.copyWorkspace(path.join(ROOT, 'test', 'fixtures', 'workspace'));
    await fs.writeFile(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify(options.workspaceSettings ?? {}, null, 2));
    const server = await hostLib.startCodeServer(host, {
      trust: options.trust ?? false,
      userSettings: {
        ...QUIET_USER_SETTINGS,
        'workbench.colorTheme': options.theme ?? 'Default Dark Modern',
        ...options.userSettings,
      },
      env: options.env,
    });
    let browser: Browser | undefined;
    try {
      hostLib.linkExtension(server.extensionsDir);
      browser = await chromium.launch(hostLib.chromiumLaunchOptions(host));
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      const workbench = new Workbench(server, browser, page, workspace);
      openWorkbenches.add(workbench);
      await workbench.open().catch(async (error: unknown) => {
        // A failed `before` hook gets no afterEach screenshot and no `after` to close this one.
        const file = await workbench.screenshot('FAILED-workbench-start').catch(() => undefined);
        if (file) console.log(`    screenshot: ${file}`);
        openWorkbenches.delete(workbench);
        throw error;
      });
      return workbench;
    } catch (error) {
      await browser?.close().catch(() => undefined);
      await server.stop();
      await fs.rm(path.dirname(workspace), { recursive: true, force: true });
      throw error;
    }
  }

  get url(): string {
    return `${this.server.url}/?folder=${encodeURIComponent(this.workspace)}`;
  }

  async open(): Promise<void> {
    // The page load alone can pass 30 s (playwright's default) on two busy cores.
    await this.page.goto(this.url, { timeout: 120_000 });
    await this.page.locator('.monaco-workbench .activitybar').waitFor({ timeout: 90_000 });
  }

  async reload(): Promise<void> {
    await this.page.reload();
    await this.page.locator('.monaco-workbench .activitybar').waitFor({ timeout: 90_000 });
  }

  /**
   * Clicks Toolbelt's activity-bar icon and waits for its views. The Tools view starts collapsed
   * (the chat gets the height); it is expanded and its tree waited for unless `expandTools` is false.
   */
  async openToolbelt(options: { expandTools?: boolean } = {}): Promise<void> {
    const icon = this.page.locator('.activitybar [aria-label="Toolbelt"]').first();
    await icon.waitFor({ timeout: 60_000 });
    const sidebarTitle = this.page.locator('.part.sidebar .composite.title h2', { hasText: 'Toolbelt' });
    // The icon toggles: after a reload the container may be open (its icon checked) but not drawn
    // yet, and a click then closes it. Click only an unchecked icon, and look again after each try.
    for (let attempt = 1; attempt <= 3 && !(await sidebarTitle.isVisible()); attempt++) {
      const open = await icon.evaluate((el) => el.closest('.action-item')?.classList.contains('checked') === true || el.getAttribute('aria-expanded') === 'true');
      if (!open) await icon.click();
      await sidebarTitle.waitFor({ timeout: 10_000 }).catch(() => undefined);
    }
    const toolsHeader = this.page.locator('.part.sidebar .pane-header', { hasText: /^Tools/ }).first();
    await toolsHeader.waitFor({ timeout: 60_000 });
    if (options.expandTools ?? true) await this.setToolsViewExpanded(true);
    if ((await toolsHeader.getAttribute('aria-expanded')) === 'true') {
      await this.toolsTree.locator('[role=treeitem]').first().waitFor({ timeout: 60_000 });
    }
  }

  /** Drags the sash between the side bar and the editor so the side bar is `width` pixels wide. */
  async widenSidebar(width: number): Promise<void> {
    const box = await this.page.locator('.part.sidebar').boundingBox();
    if (!box) return;
    const y = box.y + box.height / 2;
    await this.page.mouse.move(box.x + box.width + 2, y);
    await this.page.mouse.down();
    await this.page.mouse.move(box.x + width, y, { steps: 5 });
    await this.page.mouse.up();
  }

  /** Clicks one of the chat view's title actions (they show while the header is hovered). */
  async chatViewAction(label: string): Promise<void> {
    const header = this.page.locator('.part.sidebar .pane-header', { hasText: /^Chat/ }).first();
    await header.hover();
    await header.locator(`.action-label[aria-label^="${label}"]`).click();
  }

  /** Expands or collapses the Tools section under the chat. */
  async setToolsViewExpanded(expanded: boolean): Promise<void> {
    const header = this.page.locator('.part.sidebar .pane-header', { hasText: /^Tools/ }).first();
    await header.waitFor();
    if ((await header.getAttribute('aria-expanded')) !== String(expanded)) await header.click();
    if (expanded) await this.giveToolsRoom();
  }

  /**
   * Expanded under the chat, the Tools view gets a sliver of the side bar, and the tree renders
   * only the rows on screen: drags the sash above it up to about a third of the side bar.
   */
  private async giveToolsRoom(): Promise<void> {
    const toolsHeader = this.page.locator('.part.sidebar .pane-header', { hasText: /^Tools/ }).first();
    for (let attempt = 1; attempt <= 3; attempt++) {
      const sidebar = await this.page.locator('.part.sidebar').boundingBox();
      const header = await toolsHeader.boundingBox();
      if (!sidebar || !header) return;
      const target = sidebar.y + sidebar.height * 0.35;
      if (header.y <= target + 20) return;
      // The sash itself, not a pixel above the header: that pixel can fall on the chat's webview,
      // which swallows the mouse while the layout settles.
      const sash = await this.sashAbove(header.y);
      const x = sash ? sash.x + sash.width / 2 : header.x + header.width / 2;
      const y = sash ? sash.y + sash.height / 2 : header.y - 1;
      await this.page.mouse.move(x, y);
      await this.page.mouse.down();
      await this.page.mouse.move(x, target, { steps: 8 });
      await this.page.mouse.up();
      // Off the rows: a row's hover would cover what the test clicks next.
      await this.page.mouse.move(sidebar.x + sidebar.width + 300, sidebar.y + 200);
      await this.page.waitForTimeout(200 * attempt);
    }
  }

  private async sashAbove(headerY: number): Promise<{ x: number; y: number; width: number; height: number } | undefined> {
    for (const sash of await this.page.locator('.part.sidebar .monaco-sash.horizontal').all()) {
      const box = await sash.boundingBox();
      if (box && box.width > 0 && Math.abs(box.y + box.height / 2 - headerY) <= 6) return box;
    }
    return undefined;
  }

  get toolsTree(): Locator {
    return this.page.locator('.part.sidebar [role=tree][aria-label="Tools"]');
  }

  toolRow(name: string): Locator {
    return this.toolsTree.locator(`[role=treeitem][aria-label^="${name},"]`);
  }

  checkbox(name: string): Locator {
    return this.toolRow(name).locator('[role=checkbox]');
  }

  /**
   * Waits until a tool's checkbox shows the given state. The workbench flips a checkbox the moment
   * it is clicked, before the extension hears of it: wait for `waitForActiveSummary` before the
   * next click on the tree, or before relying on the extension having the new state.
   */
  async waitForChecked(name: string, checked: boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((await this.checkbox(name).getAttribute('aria-checked').catch(() => null)) !== String(checked)) {
      if (Date.now() > deadline) throw new Error(`${name} did not become ${checked ? 'checked' : 'unchecked'}`);
      await this.page.waitForTimeout(100);
    }
  }

  /**
   * Waits until the Active group's summary (computed by the extension, e.g. "2 of 4 enabled")
   * reads `text`: proof that the extension host applied a toggle, not just the checkbox's
   * own optimistic flip in the workbench. Each toggle refreshes the whole tree, and until the
   * workbench has fetched the rows again the extension host does not know them: a checkbox click
   * in that window is dropped by VS Code (ExtHostTreeView.setCheckboxState skips unknown handles).
   * Once the new summary shows, the rows under it have been fetched again.
   */
  async waitForActiveSummary(text: string, timeoutMs = 20_000): Promise<void> {
    // The summary may go on with the schemas' token cost ("· ~1.2k tokens").
    const summary = new RegExp(`^\\s*Active\\s*${text}(\\s*·[^]*)?\\s*$`);
    await this.toolsTree.locator('[role=treeitem][aria-level="1"]', { hasText: summary }).first().waitFor({ timeout: timeoutMs });
  }

  /**
   * Runs a command from the palette by its exact title. The palette is reopened if the command list
   * was not ready, or if it closed before the title was typed (a view that takes focus just then,
   * such as the chat panel focusing its input after New Chat, closes it).
   */
  async runCommand(title: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      await this.page.keyboard.press('F1');
      const input = this.page.locator('.quick-input-widget input');
      try {
        await input.fill(`>${title}`, { timeout: 5_000 });
        await this.pickOption(title, 5_000);
        return;
      } catch (error) {
        if (attempt === 3) throw error;
        await this.page.keyboard.press('Escape');
      }
    }
  }

  /** Clicks the quick-pick entry whose label is exactly `label`. */
  async pickOption(label: string, timeout = 30_000): Promise<void> {
    const exact = new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
    const option = this.page
      .locator('.quick-input-list [role=option]')
      .filter({ has: this.page.locator('.label-name', { hasText: exact }) })
      .first();
    await option.click({ timeout });
  }

  notification(text: string | RegExp): Locator {
    return this.page.locator('.notification-toast', { hasText: text });
  }

  async readWorkspaceFile(relative: string): Promise<string> {
    return fs.readFile(path.join(this.workspace, relative), 'utf8');
  }

  /** The chat webview's inner frame (webviews are iframes inside iframes). */
  async chatFrame(): Promise<Frame> {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      for (const frame of this.page.frames()) {
        if (await frame.locator('#toolbelt-chat').count().catch(() => 0)) return frame;
      }
      await this.page.waitForTimeout(200);
    }
    throw new Error('The chat webview did not appear');
  }

  async screenshot(name: string): Promise<string> {
    await fs.mkdir(SCREENSHOTS, { recursive: true });
    const file = path.join(SCREENSHOTS, `${name}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  async close(): Promise<void> {
    openWorkbenches.delete(this);
    await this.browser.close().catch(() => undefined);
    await this.server.stop();
    await fs.rm(path.dirname(this.workspace), { recursive: true, force: true });
  }
}
