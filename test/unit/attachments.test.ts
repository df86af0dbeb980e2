import * as assert from 'node:assert/strict';
import { Agent } from '../../src/agent/agent';
import { ATTACHMENT_LIMITS, capAttachment, chipsOf, withAttachments, type AttachmentLimits, type AttachmentSource } from '../../src/chat/attachments';
import { ChatController, type ChatEnvironment } from '../../src/chat/chatController';
import { OpenAIProvider } from '../../src/providers/openai';
import { MAX_ATTACHED_CHARS, MAX_ATTACHMENT_CHARS, MAX_ATTACHMENTS, parseWebviewMessage, type Attachment } from '../../src/protocol';
import { LIMITS } from '../../src/tools/manifest';
import { ToolManager } from '../../src/tools/toolManager';
import { ModelServer } from '../support/modelServer';

const SMALL: AttachmentLimits = { itemLines: 3, itemChars: 40, totalChars: 100 };
const file = (text: string, extra: Partial<AttachmentSource> = {}): AttachmentSource => ({ kind: 'file', path: 'src/a.ts', text, complete: true, ...extra });
const lines = (n: number, prefix = 'line') => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`).join('\n');

function attached(result: ReturnType<typeof capAttachment>): Attachment {
  assert.ok(result.ok, result.ok ? '' : result.reason);
  return result.attachment;
}

describe('attachments: capping context from the editor (src/chat/attachments.ts)', () => {
  it("uses read_file's limits per attachment, within what one message may carry", () => {
    assert.equal(ATTACHMENT_LIMITS.itemLines, LIMITS.readFileDefaultLines);
    assert.equal(ATTACHMENT_LIMITS.itemChars, LIMITS.readFileMaxChars);
    assert.ok(ATTACHMENT_LIMITS.itemChars <= MAX_ATTACHMENT_CHARS, 'a capped attachment passes the protocol check');
    assert.ok(ATTACHMENT_LIMITS.totalChars <= MAX_ATTACHED_CHARS);
  });

  it('attaches a small file whole, with no notice', () => {
    const a = attached(capAttachment(file('const a = 1;\nconst b = 2;\n'), 0, SMALL));
    assert.deepEqual(a, { kind: 'file', path: 'src/a.ts', content: 'const a = 1;\nconst b = 2;' });
  });

  it('cuts a file to the line limit and says which lines of how many were attached', () => {
    const a = attached(capAttachment(file(lines(10)), 0, SMALL));
    assert.equal(a.content, 'line1\nline2\nline3');
    assert.equal(a.notice, 'Truncated: lines 1-3 of 10 attached (an attachment carries at most 3 lines).');
  });

  it('cuts a file to the character limit at a line break', () => {
    const a = attached(capAttachment(file(lines(3, 'x'.repeat(15))), 0, SMALL));
    assert.equal(a.content, `${'x'.repeat(15)}1\n${'x'.repeat(15)}2`);
    assert.ok(a.content.length <= SMALL.itemChars);
    assert.equal(a.notice, 'Truncated: lines 1-2 of 3 attached (an attachment carries at most 40 characters).');
  });

  it('cuts one long line hard at the character limit', () => {
    const a = attached(capAttachment(file('y'.repeat(100)), 0, SMALL));
    assert.equal(a.content, 'y'.repeat(40));
    assert.match(a.notice ?? '', /^Truncated: lines 1-1 of 1 attached/);
  });

  it('fits an attachment into what the message has left, and refuses one when nothing is left', () => {
    const a = attached(capAttachment(file(lines(3, 'zzzzzzzz')), 85, SMALL));
    assert.ok(a.content.length <= 15, a.content);
    assert.match(a.notice ?? '', /a message's attachments carry at most 100 characters together/);
    const refused = capAttachment(file('more'), 100, SMALL);
    assert.equal(refused.ok, false);
    assert.match(refused.ok ? '' : refused.reason, /^src\/a\.ts was not attached: this message's attachments already hold 100 characters/);
  });

  it('names a selection by its lines and counts the cut from its first line', () => {
    const whole = attached(capAttachment({ kind: 'selection', path: 'src/a.ts', range: { start: 12, end: 13 }, text: 'one\ntwo', complete: true }, 0, SMALL));
    assert.deepEqual(whole, { kind: 'selection', path: 'src/a.ts', range: { start: 12, end: 13 }, content: 'one\ntwo' });
    const cut = attached(capAttachment({ kind: 'selection', path: 'src/a.ts', range: { start: 20, end: 29 }, text: lines(10), complete: true }, 0, SMALL));
    assert.equal(cut.notice, "Truncated: lines 20-22 of the selection's 20-29 attached (an attachment carries at most 3 lines).");
  });

  it('says so when only the head of a big file was read', () => {
    const a = attached(capAttachment(file('a\nb', { complete: false, totalBytes: 5 * 1024 * 1024 }), 0, SMALL));
    assert.equal(a.notice, 'Truncated: lines 1-2 of 5.0 MB attached (only the first 3 B were read).');
  });

  it('refuses a binary file with the reason', () => {
    const result = capAttachment(file('', { binary: true, totalBytes: 2048, path: 'logo.png' }), 0, SMALL);
    assert.deepEqual(result, { ok: false, reason: 'logo.png looks like a binary file (2.0 KB); only text can be attached.' });
  });

  it('puts the attachments in a delimited block before the text, with paths, lines and notices', () => {
    const sent = withAttachments('What does this do?', [
      { kind: 'selection', path: 'src/a.ts', range: { start: 3, end: 4 }, content: 'x()\ny()' },
      { kind: 'file', path: 'docs/"odd".md', content: '# Doc', notice: 'Truncated: lines 1-1 of 9 attached (x).' },
    ]);
    assert.equal(
      sent,
      'The user attached these from the workspace (paths relative to its root):\n<attachments>\n' +
        '<attachment kind="selection" path="src/a.ts" lines="3-4">\nx()\ny()\n</attachment>\n' +
        '<attachment kind="file" path="docs/&quot;odd&quot;.md">\n# Doc\n[Truncated: lines 1-1 of 9 attached (x).]\n</attachment>\n' +
        '</attachments>\n\nWhat does this do?',
    );
    assert.equal(withAttachments('plain'), 'plain');
  });

  it('keeps only the chips (no text) for the transcript', () => {
    const list: Attachment[] = [{ kind: 'file', path: 'a', content: 'abc', notice: 'n' }, { kind: 'selection', path: 'b', range: { start: 1, end: 1 }, content: 'de' }];
    assert.deepEqual(chipsOf(list), { attachments: [{ kind: 'file', path: 'a', notice: 'n' }, { kind: 'selection', path: 'b', range: { start: 1, end: 1 } }] });
    assert.deepEqual(chipsOf([]), {});
  });
});

describe('attachments in the webview protocol (parseWebviewMessage)', () => {
  const send = (attachments: unknown) => parseWebviewMessage({ type: 'send', id: 's', text: 'hi', attachments });
  const ok: Attachment = { kind: 'file', path: 'src/a.ts', content: 'x' };

  it('accepts attachments within the limits and keeps only their known fields', () => {
    const withExtra = { ...ok, range: { start: 2, end: 3, junk: 1 }, notice: 'cut', extra: 'dropped' };
    assert.deepEqual(send([withExtra]), { type: 'send', id: 's', text: 'hi', attachments: [{ ...ok, range: { start: 2, end: 3 }, notice: 'cut' }] });
    assert.deepEqual(parseWebviewMessage({ type: 'pickContext', used: 120 }), { type: 'pickContext', used: 120 });
  });

  it('refuses malformed or oversized attachments', () => {
    const bad: unknown[] = [
      'x',
      [{ ...ok, kind: 'folder' }],
      [{ ...ok, path: '' }],
      [{ ...ok, content: 5 }],
      [{ ...ok, content: 'x'.repeat(MAX_ATTACHMENT_CHARS + 1) }],
      Array.from({ length: 3 }, () => ({ ...ok, content: 'x'.repeat(MAX_ATTACHED_CHARS / 2 - 1) })),
      Array.from({ length: MAX_ATTACHMENTS + 1 }, () => ok),
      [{ ...ok, range: { start: 0, end: 2 } }],
      [{ ...ok, range: { start: 5, end: 2 } }],
      [{ ...ok, notice: 7 }],
      [null],
    ];
    for (const attachments of bad) assert.equal(send(attachments), undefined, JSON.stringify(attachments).slice(0, 80));
    for (const used of [-1, 1.5, '3', undefined]) assert.equal(parseWebviewMessage({ type: 'pickContext', used }), undefined, String(used));
  });
});

describe('ChatController.send with attachments', () => {
  let server: ModelServer;
  before(async () => (server = await ModelServer.start()));
  after(async () => server.close());

  it('sends the block before the text to the model and shows chips (without the text) on the user item', async () => {
    const manager = new ToolManager({ context: { systemPrompt: '', sessionContext: '', sessionContextFilePath: '.toolbelt/x.md', workspaceRoot: process.cwd() } });
    const env: ChatEnvironment = {
      registry: manager.registry,
      setup: async () => ({ provider: new OpenAIProvider({ apiKey: 'k', baseURL: server.openaiBaseUrl, model: 'm', maxRetries: 0 }), systemPrompt: 'Be brief.', maxToolRounds: 2 }),
      loadAgent: async () => Agent,
      save: () => undefined,
      activeTools: () => [],
      describeModel: () => ({ provider: 'openai', model: 'm' }),
    };
    const controller = new ChatController(env);
    server.enqueue({ text: 'It adds.' });
    await controller.send('Explain', [{ kind: 'selection', path: 'src/a.ts', range: { start: 1, end: 1 }, content: 'add(1, 2)' }]);
    const user = (server.requests[0].body.messages as { role: string; content: string }[]).find((m) => m.role === 'user');
    assert.match(user?.content ?? '', /<attachment kind="selection" path="src\/a\.ts" lines="1-1">\nadd\(1, 2\)\n<\/attachment>\n<\/attachments>\n\nExplain$/);
    const item = controller.state().items[0];
    assert.deepEqual(item, { kind: 'user', id: item.id, text: 'Explain', attachments: [{ kind: 'selection', path: 'src/a.ts', range: { start: 1, end: 1 } }] });
    assert.equal(controller.state().title, 'Explain');
  });
});
