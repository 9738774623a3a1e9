/**
 * The browser playground: plain DOM over the public API. The service key lives in this page's memory only
 * (never in storage or a cookie), and is sent as `x-service-token` to the gateway that served the page.
 */
import { ChatApi, Line, Message, ThreadSummary } from './chat-api';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const keyInput = $<HTMLInputElement>('key');
const agentSelect = $<HTMLSelectElement>('agent');
const userInput = $<HTMLInputElement>('user');
const threadList = $<HTMLUListElement>('threads');
const log = $<HTMLDivElement>('log');
const statusLine = $<HTMLDivElement>('status');
const input = $<HTMLTextAreaElement>('input');
const fileInput = $<HTMLInputElement>('file');

let chat: ChatApi | null = null;
let currentThread: string | null = null;

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
  chat = new ChatApi(keyInput.value.trim());
  const agents = await chat.agents();
  agentSelect.replaceChildren(
    ...agents.map((agent) => el('option', { value: agent.id, textContent: agent.name })),
  );
  await refreshThreads();
}

async function refreshThreads(): Promise<void> {
  if (!chat) return;
  const threads = await chat.threads(userId());
  threadList.replaceChildren(...threads.map(threadItem));
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
      if (renamed) await chat!.updateThread(thread.id, userId(), { name: renamed });
    }),
    act(thread.starred ? '☆' : '★', thread.starred ? 'Unstar' : 'Star', () =>
      chat!.updateThread(thread.id, userId(), { starred: !thread.starred }),
    ),
    act('✕', 'Archive', async () => {
      await chat!.archiveThread(thread.id, userId());
      if (currentThread === thread.id) newThread();
    }),
  );
  item.dataset.threadId = thread.id;
  return item;
}

function newThread(): void {
  currentThread = null;
  log.replaceChildren();
  void refreshThreads().catch(showError);
}

async function openThread(id: string): Promise<void> {
  const thread = await chat!.thread(id, userId());
  currentThread = thread.id;
  log.replaceChildren(...thread.messages.map((message) => renderMessage(message).node));
  await refreshThreads();
}

interface RenderedReply {
  node: HTMLDivElement;
  text: HTMLDivElement;
  apply(line: Line): void;
}

/** A message bubble; an assistant's is filled line by line from its stream (or from its stored events). */
function renderMessage(message: Message): RenderedReply {
  const text = el('div', { className: 'text', textContent: message.content });
  const node = el('div', { className: `message ${message.role}` }, text);
  node.dataset.messageId = message.id;
  if (message.files.length > 0) {
    node.append(
      el('div', { className: 'files' }, `attached: ${message.files.map((file) => file.name).join(', ')}`),
    );
  }
  const calls = new Map<string, HTMLDetailsElement>();
  const apply = (line: Line) => {
    if (line.type === 'text.delta') text.textContent += String(line.delta);
    else if (line.type === 'tool.call') {
      const details = el(
        'details',
        { className: 'tool' },
        el('summary', { textContent: `tool ${String(line.name)}` }),
        el('pre', { textContent: `arguments: ${JSON.stringify(line.arguments, null, 2)}` }),
      );
      calls.set(String(line.call_id), details);
      node.insertBefore(details, text);
    } else if (line.type === 'tool.result') {
      const output = typeof line.output === 'string' ? line.output : JSON.stringify(line.output, null, 2);
      calls
        .get(String(line.call_id))
        ?.append(el('pre', { textContent: `${line.is_error ? 'error' : 'result'}: ${output}` }));
    } else if (line.type === 'questions') renderQuestions(node, line.questions as Message['questions']);
    else if (line.type === 'message.completed') {
      const final = line.message as Message;
      text.textContent = final.content;
      if (final.status === 'error')
        node.append(
          el('div', { className: 'files', textContent: `error: ${final.error_code ?? final.status}` }),
        );
    }
  };
  if (message.role === 'assistant') {
    for (const event of message.events ?? []) if (event.type !== 'questions') apply(event);
    renderQuestions(node, message.questions);
  }
  return { node, text, apply };
}

function renderQuestions(node: HTMLElement, questions: Message['questions']): void {
  node.querySelector('.questions')?.remove();
  if (!questions?.length) return;
  const box = el('div', { className: 'questions' });
  for (const question of questions) {
    box.append(el('div', { textContent: question.prompt }));
    for (const option of question.options ?? []) {
      const button = el('button', { textContent: option, type: 'button' });
      button.addEventListener('click', () => void send(option).catch(showError));
      box.append(button);
    }
  }
  node.append(box);
}

async function send(content: string): Promise<void> {
  if (!chat) throw new Error('Connect with a service key first');
  statusLine.textContent = '';
  const file = fileInput.files?.[0];
  const fileIds = file ? [await chat.upload(file, userId())] : [];
  fileInput.value = '';
  const message = { content, ...(fileIds.length > 0 ? { file_ids: fileIds } : {}) };
  let reply: Message;
  if (currentThread) {
    reply = await chat.postMessage(currentThread, userId(), message);
    log.append(
      renderMessage({ ...reply, id: '', role: 'user', content, files: file ? [{ name: file.name }] : [] })
        .node,
    );
  } else {
    const thread = await chat.startThread(agentSelect.value, userId(), message);
    currentThread = thread.id;
    log.append(renderMessage(thread.messages[0]).node);
    reply = thread.messages[1];
    void refreshThreads();
  }
  const rendered = renderMessage({ ...reply, content: '', events: [] });
  log.append(rendered.node);
  for await (const line of chat.stream(reply.id)) {
    rendered.apply(line);
    log.scrollTop = log.scrollHeight;
  }
  await refreshThreads();
}

$('connect').addEventListener('click', () => void connect().catch(showError));
$('new-thread').addEventListener('click', newThread);
userInput.addEventListener('change', newThread);
$<HTMLFormElement>('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  const content = input.value.trim();
  if (!content) return;
  input.value = '';
  void send(content).catch(showError);
});
