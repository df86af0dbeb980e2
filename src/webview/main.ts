import type { Attachment, ChatViewState, ContextMeter, HostMessage, WebviewMessage } from '../protocol';
import './chat.css';
import './toolCards.css';
import './composer.css';
import { ComposerAttachments } from './attachments';
import { HashSuggestions } from './hashSuggestions';
import { attachScrollToBottom } from './scrollToBottom';
import { button, el, TranscriptView } from './transcript';
import { TrustBanner } from './trustBanner';
import { HistoryList } from './historyList';
import { TurnActionsView } from './turnActions';
import { compact } from './tokenCount';
import { svgIcon } from './svgIcon';

const WRENCH = 'M13.6 4.4 11.5 6.5 9.6 6.4 9.5 4.5l2.1-2.1a3.4 3.4 0 0 0-4.4 4.3L2.5 11.4a1.5 1.5 0 0 0 2.1 2.1l4.7-4.7a3.4 3.4 0 0 0 4.3-4.4z';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): { draft?: string; attachments?: Attachment[] } | undefined;
  setState(state: { draft?: string; attachments?: Attachment[] }): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const post = (message: WebviewMessage) => vscode.postMessage(message);

const root = document.getElementById('toolbelt-chat')!;
const header = el('header', 'chat-header');
const modelButton = button('', 'model-switch', () => post({ type: 'command', command: 'switchModel' }));
modelButton.title = 'Switch provider or model';
const meter = el('span', 'context-meter');
meter.setAttribute('role', 'status');
meter.hidden = true;
header.append(modelButton, meter);

const scroller = el('main', 'transcript-scroller');
const welcome = el('section', 'welcome');
const log = el('div', 'transcript');
log.setAttribute('role', 'log');
log.setAttribute('aria-live', 'polite');
log.setAttribute('aria-label', 'Conversation');
scroller.append(welcome, log);
const toLatest = attachScrollToBottom(scroller, log);

const composer = el('form', 'composer');
const input = el('textarea', 'message-input');
input.rows = 1;
input.placeholder = 'Ask Toolbelt…';
input.title = 'Enter sends, Shift+Enter adds a line, Escape stops a reply';
input.setAttribute('aria-label', 'Message to Toolbelt. Enter sends, Shift+Enter adds a line, Escape stops a reply.');
input.value = vscode.getState()?.draft ?? '';
const status = el('div', 'composer-status');
status.setAttribute('role', 'status');
const send = el('button', 'send-button');
send.type = 'submit';
send.textContent = 'Send';
send.setAttribute('aria-label', 'Send message');
const stop = button('Stop', 'stop-button', () => post({ type: 'stop' }));
stop.setAttribute('aria-label', 'Stop the reply (Escape)');
// Before the composer's own keys: while the `#` list is open, Enter and the arrows are its.
const hashList = new HashSuggestions({ input, post, used: () => attachments.usedChars(), browse: () => attachments.pick() });
composer.append(hashList.element, input, send, stop, status);
const attachments = new ComposerAttachments({ post, input, say: (text) => showStatus(text), changed: () => saveDraft(), hash: (at) => hashList.openAt(at) });
attachments.add(vscode.getState()?.attachments ?? []);
composer.prepend(attachments.element);
// Configure Tools at the input, as Copilot has it: the tools are a click away and the chat keeps its height.
const toolsButton = button('', 'configure-tools', () => post({ type: 'command', command: 'configureTools' }));
attachments.element.insertBefore(toolsButton, attachments.element.firstChild?.nextSibling ?? null);
const trustBanner = new TrustBanner(() => post({ type: 'command', command: 'trustWorkspace' }));
root.append(header, trustBanner.element, scroller, toLatest, composer);

const transcript = new TranscriptView(log, {
  approve: (requestId, decision) => post({ type: 'approve', requestId, decision }),
  retry: () => post({ type: 'retry' }),
  runAction: (action) => post({ type: 'command', command: action }),
  copy: (text) => post({ type: 'copy', text }),
  openLink: (href) => post({ type: 'openLink', href }),
  undo: (turnId) => post({ type: 'undo', turnId }),
  review: (requestId) => post({ type: 'review', requestId }),
  compare: (turnId, path) => post({ type: 'compare', turnId, path }),
  code: (message) => post(message),
  enableAndRetry: (tool) => post({ type: 'enableAndRetry', tool }),
  applyDecision: (itemId, decision) => post({ type: 'applyDecision', itemId, decision }),
});
const turnActions = new TurnActionsView(transcript, log, post);
const history = new HistoryList(root, post, () => input.focus());

let busy = false;
let pendingSend: { id: string; text: string; attachments: Attachment[] } | undefined;
let sendCounter = 0;

function setBusy(value: boolean): void {
  busy = value;
  root.classList.toggle('busy', busy);
  stop.hidden = !busy;
  send.hidden = busy;
  turnActions.setBusy(busy);
}

function setMeta(provider: string, model: string, tools: string[]): void {
  modelButton.textContent = `${provider} · ${model}`;
  modelButton.setAttribute('aria-label', `Model: ${provider} ${model}. Switch model`);
  toolsButton.replaceChildren(svgIcon(WRENCH, 'add-context-icon'), document.createTextNode(tools.length === 1 ? '1 tool' : `${tools.length} tools`));
  toolsButton.title = `Configure Tools: the model may use ${tools.length ? tools.join(', ') : 'no tools'}`;
  toolsButton.setAttribute('aria-label', `Configure Tools (${tools.length} active)`);
  welcome.replaceChildren();
  const title = el('h2');
  title.textContent = 'Ask about this workspace';
  const text = el('p');
  text.textContent = tools.length
    ? `The model can use ${tools.length} tool${tools.length === 1 ? '' : 's'}: ${tools.join(', ')}.`
    : 'No tools are active, so the model can only talk. Activate tools in the Tools view.';
  const connect = button('Connect a Model…', 'secondary connect-model', () => post({ type: 'command', command: 'connectModel' }));
  connect.title = 'Find a local Ollama or LM Studio, or pick a provider, then a model from its list, and test it';
  welcome.append(title, text, button('Configure tools', 'link-button', () => post({ type: 'command', command: 'configureTools' })), el('br'), connect);
}

/** "3.1k / 32k · 10%": how full the model's context window was for the latest request. */
function setContext(context: ContextMeter | undefined): void {
  meter.hidden = !context;
  if (!context) return;
  const percent = Math.min(999, Math.round((context.tokens / Math.max(1, context.contextTokens)) * 100));
  meter.textContent = `${compact(context.tokens)} / ${compact(context.contextTokens)} · ${percent}%`;
  meter.classList.toggle('context-full', percent >= 80);
  const fitted = [
    context.shortenedResults ? `${context.shortenedResults} older tool results shortened` : '',
    context.droppedMessages ? `${context.droppedMessages} older messages left out` : '',
  ].filter(Boolean);
  meter.title =
    `Context window: ${context.tokens.toLocaleString('en-US')} of ${context.contextTokens.toLocaleString('en-US')} tokens ` +
    `(${context.measured === 'reported' ? "the service's count" : 'estimated'}) for the latest request.` +
    (fitted.length ? ` To fit: ${fitted.join(', ')}.` : '');
}

function applyState(state: ChatViewState): void {
  setMeta(state.provider, state.model, state.activeTools);
  setContext(state.context);
  transcript.reset(state.items);
  turnActions.reset(state.turnActions);
  updateWelcome();
  setBusy(state.busy);
}

function updateWelcome(): void {
  welcome.hidden = transcript.size > 0;
}

function submit(): void {
  const text = input.value;
  if (!text.trim() || busy) return;
  const attached = attachments.take();
  pendingSend = { id: `send-${++sendCounter}`, text, attachments: attached };
  post({ type: 'send', id: pendingSend.id, text, ...(attached.length ? { attachments: attached } : {}) });
  input.value = '';
  saveDraft();
  resize();
}

function saveDraft(): void {
  vscode.setState({ draft: input.value, attachments: attachments.items });
}

function showStatus(text: string): void {
  status.textContent = text;
  setTimeout(() => status.textContent === text && (status.textContent = ''), 6000);
}

function resize(): void {
  input.style.height = 'auto';
  input.style.height = `${Math.min(input.scrollHeight, 200)}px`;
}

composer.addEventListener('submit', (event) => {
  event.preventDefault();
  submit();
});
input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    submit();
  }
});
input.addEventListener('input', () => {
  resize();
  saveDraft();
});
window.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && busy) {
    event.preventDefault();
    post({ type: 'stop' });
  }
});

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const message = event.data;
  switch (message.type) {
    case 'state':
      applyState(message.state);
      break;
    case 'item':
      transcript.upsert(message.item);
      turnActions.apply();
      updateWelcome();
      break;
    case 'text':
      transcript.appendText(message.itemId, message.text);
      break;
    case 'busy':
      setBusy(message.busy);
      break;
    case 'meta':
      setMeta(message.provider, message.model, message.activeTools);
      break;
    case 'context':
      setContext(message.context);
      break;
    case 'reply':
      if (!message.ok && pendingSend?.id === message.id) {
        input.value = pendingSend.text;
        attachments.add(pendingSend.attachments);
        status.textContent = message.error ?? 'Not sent.';
        setTimeout(() => (status.textContent = ''), 4000);
      }
      pendingSend = undefined;
      break;
    case 'focusInput':
      input.focus();
      break;
    case 'trust':
      trustBanner.update(message);
      break;
    case 'turnActions':
      turnActions.set(message.actions);
      break;
    case 'history':
      history.update(message.entries, message.currentId, message.show, message.problem);
      break;
    case 'attachments':
      attachments.receive(message);
      break;
    case 'addContext':
      attachments.pick();
      break;
    case 'contextSuggestions':
      hashList.receive(message);
      break;
  }
});

setBusy(false);
resize();
post({ type: 'ready' });
