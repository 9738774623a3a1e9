/**
 * The browser playground: plain DOM over the public API. The service key lives in this page's memory only
 * (never in storage or a cookie); it lists agents and mints an end-user token, and the chat itself runs as a
 * customer's front end would: that token, and the AI SDK's own client code on /ai-sdk/chat.
 */
import { DefaultChatTransport, readUIMessageStream, UIMessage } from 'ai';
import { Agent, EndUserApi, KeyApi, Message, ThreadSummary } from './chat-api';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const keyInput = $<HTMLInputElement>('key');
const agentSelect = $<HTMLSelectElement>('agent');
const userInput = $<HTMLInputElement>('user');
const threadList = $<HTMLUListElement>('threads');
const log = $<HTMLDivElement>('log');
const statusLine = $<HTMLDivElement>('status');
const input = $<HTMLTextAreaElement>('input');
const fileInput = $<HTMLInputElement>('file');
const stopButton = $<HTMLButtonElement>('stop');

let keyApi: KeyApi | null = null;
/** The organization's agents, as the key lists them: their namespaces go into each token minted. */
let agents: Agent[] = [];
let user: EndUserApi | null = null;
let transport: DefaultChatTransport<UIMessage> | null = null;
let currentThread: string | null = null;
/** The AI SDK chat id of what is on screen: a fresh one for a new thread, the thread's id for a listed one. */
let chatId: string = crypto.randomUUID();

const userId = () => userInput.value.trim() || 'playground-user';

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
  ...children: (Node | string)[]
) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function showError(error: unknown): void {
  statusLine.textContent = error instanceof Error ? error.message : String(error);
}

async function connect(): Promise<void> {
  statusLine.textContent = '';
  keyApi = new KeyApi(keyInput.value.trim());
  agents = await keyApi.agents();
  agentSelect.replaceChildren(
    ...agents.map((agent) => el('option', { value: agent.id, textContent: agent.name })),
  );
  await switchUser();
}

/** A token for the user id in the form: the page then acts as that end user only. */
async function switchUser(): Promise<void> {
  if (!keyApi) return;
  user = await keyApi.endUser(userId(), agents);
  transport = user.transport(() => agentSelect.value);
  newThread();
}

async function refreshThreads(): Promise<ThreadSummary[]> {
  if (!user) return [];
  const threads = await user.threads();
  threadList.replaceChildren(...threads.map(threadItem));
  return threads;
}

function threadItem(thread: ThreadSummary): HTMLLIElement {
  const name = el('span', { textContent: `${thread.starred ? '★ ' : ''}${thread.name}`, title: thread.name });
  name.addEventListener('click', () => void openThread(thread.id).catch(showError));
  const act = (label: string, title: string, action: () => Promise<unknown>) => {
    const button = el('button', { textContent: label, title, type: 'button' });
    button.addEventListener('click', () => void action().then(refreshThreads).catch(showError));
    return button;
  };
  const item = el(
    'li',
    { className: thread.id === currentThread ? 'current' : '' },
    name,
    act('✎', 'Rename', async () => {
      const renamed = prompt('Thread name', thread.name);
      if (renamed) await user!.updateThread(thread.id, { name: renamed });
    }),
    // Filled when starred, as everywhere else.
    act(thread.starred ? '★' : '☆', thread.starred ? 'Unstar' : 'Star', () =>
      user!.updateThread(thread.id, { starred: !thread.starred }),
    ),
    act('✕', 'Archive', async () => {
      await user!.archiveThread(thread.id);
      if (currentThread === thread.id) newThread();
    }),
  );
  item.dataset.threadId = thread.id;
  return item;
}

function newThread(): void {
  currentThread = null;
  chatId = crypto.randomUUID();
  log.replaceChildren();
  void refreshThreads().catch(showError);
}

async function openThread(id: string): Promise<void> {
  const thread = await user!.thread(id);
  currentThread = thread.id;
  // A thread's own id, as a chat id, continues that thread.
  chatId = thread.id;
  log.replaceChildren(
    ...thread.messages.map((message) => {
      const bubble = messageBubble(
        message.role,
        message.files.map((file) => file.name),
      );
      bubble.show(storedReply(message));
      return bubble.node;
    }),
  );
  await refreshThreads();
}

/** What a bubble shows, from a stored message or from the AI SDK's assembled one. */
interface Shown {
  text: string;
  tools: { id: string; name: string; input: unknown; output?: unknown; error?: string }[];
  questions: { prompt: string; options?: string[] }[];
  error?: string;
}

function storedReply(message: Message): Shown {
  const tools: Shown['tools'] = [];
  for (const event of message.events ?? []) {
    if (event.type === 'tool.call') {
      tools.push({ id: String(event.call_id), name: String(event.name), input: event.arguments });
    } else if (event.type === 'tool.result') {
      const tool = tools.find((candidate) => candidate.id === event.call_id);
      if (tool && event.is_error) tool.error = printable(event.output);
      else if (tool) tool.output = event.output;
    }
  }
  const failed = message.status === 'error' ? (message.error_code ?? 'error') : undefined;
  return { text: message.content, tools, questions: message.questions ?? [], error: failed };
}

function assembledReply(message: UIMessage, error?: string): Shown {
  const shown: Shown = { text: '', tools: [], questions: [], error };
  for (const part of message.parts) {
    if (part.type === 'text') shown.text += part.text;
    else if (part.type === 'dynamic-tool') {
      shown.tools.push({
        id: part.toolCallId,
        name: part.toolName,
        input: part.input,
        output: part.state === 'output-available' ? part.output : undefined,
        error: part.state === 'output-error' ? part.errorText : undefined,
      });
    } else if (part.type === 'data-parley-questions') {
      shown.questions = (part.data as { questions: Shown['questions'] }).questions;
    }
  }
  return shown;
}

const printable = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** A message bubble; an assistant's is redrawn whole from each state of its reply. */
function messageBubble(role: string, fileNames: string[] = []) {
  const text = el('div', { className: 'text' });
  const tools = el('div', { className: 'tools' });
  const node = el('div', { className: `message ${role}` }, tools, text);
  if (fileNames.length > 0)
    node.append(el('div', { className: 'files' }, `attached: ${fileNames.join(', ')}`));
  const calls = new Map<string, HTMLDetailsElement>();
  const show = (shown: Shown) => {
    text.textContent = shown.text;
    for (const tool of shown.tools) {
      let details = calls.get(tool.id);
      if (!details) {
        details = el(
          'details',
          { className: 'tool' },
          el('summary', { textContent: `tool ${tool.name}` }),
          el('pre', { textContent: `arguments: ${JSON.stringify(tool.input, null, 2)}` }),
        );
        calls.set(tool.id, details);
        tools.append(details);
      }
      const outcome =
        tool.error !== undefined
          ? `error: ${tool.error}`
          : tool.output !== undefined
            ? `result: ${printable(tool.output)}`
            : null;
      if (outcome && details.children.length < 3) details.append(el('pre', { textContent: outcome }));
    }
    renderQuestions(node, shown.questions, shown.text);
    node.querySelector('.error')?.remove();
    if (shown.error)
      node.append(el('div', { className: 'error files', textContent: `error: ${shown.error}` }));
  };
  return { node, show };
}

/** The options as buttons; the prompt only when the reply's text does not already say it. */
function renderQuestions(node: HTMLElement, questions: Shown['questions'], text: string): void {
  node.querySelector('.questions')?.remove();
  if (questions.length === 0) return;
  const box = el('div', { className: 'questions' });
  for (const question of questions) {
    if (!text.includes(question.prompt)) box.append(el('div', { textContent: question.prompt }));
    for (const option of question.options ?? []) {
      const button = el('button', { textContent: option, type: 'button' });
      button.addEventListener('click', () => void send(option).catch(showError));
      box.append(button);
    }
  }
  node.append(box);
}

async function send(content: string): Promise<void> {
  if (!user || !transport) throw new Error('Connect with a service key first');
  statusLine.textContent = '';
  const file = fileInput.files?.[0];
  const fileIds = file ? [await user.upload(file)] : [];
  fileInput.value = '';
  const question = messageBubble('user', file ? [file.name] : []);
  question.show({ text: content, tools: [], questions: [] });
  const reply = messageBubble('assistant');
  log.append(question.node, reply.node);
  log.scrollTop = log.scrollHeight;
  const stream = await transport.sendMessages({
    chatId,
    messages: [{ id: crypto.randomUUID(), role: 'user', parts: [{ type: 'text', text: content }] }],
    trigger: 'submit-message',
    messageId: undefined,
    abortSignal: undefined,
    body: fileIds.length > 0 ? { file_ids: fileIds } : undefined,
  });
  stopButton.hidden = false;
  let failure: string | undefined;
  try {
    for await (const message of readUIMessageStream<UIMessage>({
      stream,
      onError: (error) => (failure = error instanceof Error ? error.message : String(error)),
    })) {
      reply.show(assembledReply(message, failure));
      log.scrollTop = log.scrollHeight;
    }
  } finally {
    stopButton.hidden = true;
  }
  const threads = await refreshThreads();
  // A new chat's thread is the user's newest.
  if (!currentThread && threads[0]) {
    currentThread = threads[0].id;
    await refreshThreads();
  }
}

$('connect').addEventListener('click', () => void connect().catch(showError));
$('new-thread').addEventListener('click', newThread);
userInput.addEventListener('change', () => void switchUser().catch(showError));
stopButton.addEventListener('click', () => void user?.stop(chatId).catch(showError));
$<HTMLFormElement>('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  const content = input.value.trim();
  if (!content) return;
  input.value = '';
  void send(content).catch(showError);
});
