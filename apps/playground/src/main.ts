/**
 * The browser playground: plain DOM over the public API. The service key lives in this page's memory only
 * (never in storage or a cookie); it lists agents and mints an end-user token, and the chat itself runs as a
 * customer's front end would: that token, and the AI SDK's own client code on /ai-sdk/chat.
 */
import { DefaultChatTransport, DynamicToolUIPart, readUIMessageStream, UIMessage } from 'ai';
import { Agent, EndUserApi, KeyApi, Line, Message, ThreadSummary } from './chat-api';

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
/** Whether the log keeps the newest message in view: until the user scrolls up (see toNewest). */
let following = true;

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
  following = true;
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
  following = true;
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

/** Where a call that needed a person stands: waiting for a decision, or decided. */
type Approval = 'waiting' | 'approved' | 'denied';

/** What a bubble shows, from a stored message, a reply's lines, or the AI SDK's assembled message. */
interface Shown {
  /** The reply's id: what a decision on one of its calls names. */
  replyId?: string;
  text: string;
  tools: {
    id: string;
    name: string;
    input: unknown;
    output?: unknown;
    error?: string;
    approval?: Approval;
  }[];
  questions: { prompt: string; options?: string[] }[];
  /** What happened to the model calls (CONTRACTS §24): a fallback model answered, a guardrail fired. */
  notes: string[];
  error?: string;
}

/** The note a `model.fallback` line or data part shows. */
const fallbackNote = (data: Record<string, unknown>) =>
  `step ${String(data.step)}: ${String(data.from)} failed, ${String(data.to)} answers (${String(data.reason)})`;

/** The note a `guardrail.triggered` line or data part shows. */
const guardrailNote = (data: Record<string, unknown>) =>
  `guardrail: ${String(data.kind)} ${String(data.action)} in the ${data.stage === 'input' ? 'message' : 'reply'}`;

/** A reply as its stream lines tell it (CONTRACTS §5, §19): a stored message's events, or its live stream. */
function fromLines(replyId: string, lines: Line[]): Shown {
  const shown: Shown = { replyId, text: '', tools: [], questions: [], notes: [] };
  const toolOf = (line: Line) => {
    let tool = shown.tools.find((candidate) => candidate.id === line.call_id);
    if (!tool) {
      tool = { id: String(line.call_id), name: String(line.name), input: line.arguments };
      shown.tools.push(tool);
    }
    return tool;
  };
  for (const line of lines) {
    if (line.type === 'text.delta') shown.text += String(line.delta);
    else if (line.type === 'tool.call') toolOf(line);
    else if (line.type === 'tool.result') {
      const tool = toolOf(line);
      if (line.is_error) tool.error = printable(line.output);
      else tool.output = line.output;
    } else if (line.type === 'approval.requested') toolOf(line).approval = 'waiting';
    else if (line.type === 'approval.decided') {
      toolOf(line).approval = line.decision === 'approve' ? 'approved' : 'denied';
    } else if (line.type === 'questions') shown.questions = line.questions as Shown['questions'];
    else if (line.type === 'model.fallback') shown.notes.push(fallbackNote(line));
    else if (line.type === 'guardrail.triggered') shown.notes.push(guardrailNote(line));
    else if (line.type === 'message.completed') Object.assign(shown, ended(line.message as Message));
  }
  return shown;
}

/** What a reply's final Message says over its lines: its content, questions, and how it failed. */
const ended = (message: Message): Pick<Shown, 'text' | 'questions' | 'error'> => ({
  text: message.content,
  questions: message.questions ?? [],
  error: message.status === 'error' ? (message.error_code ?? 'error') : undefined,
});

function storedReply(message: Message): Shown {
  return { ...fromLines(message.id, message.events ?? []), ...ended(message) };
}

function assembledReply(message: UIMessage, error?: string): Shown {
  const shown: Shown = { replyId: message.id, text: '', tools: [], questions: [], notes: [], error };
  for (const part of message.parts) {
    if (part.type === 'text') shown.text += part.text;
    else if (part.type === 'dynamic-tool') {
      shown.tools.push({
        id: part.toolCallId,
        name: part.toolName,
        input: part.input,
        output: part.state === 'output-available' ? part.output : undefined,
        error: part.state === 'output-error' ? part.errorText : undefined,
        approval: approvalOf(part),
      });
    } else if (part.type === 'data-parley-questions') {
      shown.questions = (part.data as { questions: Shown['questions'] }).questions;
    } else if (part.type === 'data-parley-fallback') {
      shown.notes.push(fallbackNote(part.data as Record<string, unknown>));
    } else if (part.type === 'data-parley-guardrail') {
      shown.notes.push(guardrailNote(part.data as Record<string, unknown>));
    }
  }
  return shown;
}

/** A call that asked for approval: waiting, denied (the AI SDK's output-denied), or approved once it ran. */
function approvalOf(part: DynamicToolUIPart): Approval | undefined {
  if (part.state === 'approval-requested') return 'waiting';
  if (part.state === 'output-denied') return 'denied';
  return part.approval ? 'approved' : undefined;
}

const printable = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** A message bubble; an assistant's is redrawn whole from each state of its reply. */
function messageBubble(role: string, fileNames: string[] = []) {
  const text = el('div', { className: 'text' });
  const tools = el('div', { className: 'tools' });
  const node = el('div', { className: `message ${role}` }, tools, text);
  if (fileNames.length > 0)
    node.append(el('div', { className: 'files' }, `attached: ${fileNames.join(', ')}`));
  const calls = new Map<
    string,
    { details: HTMLDetailsElement; summary: HTMLElement; outcome: HTMLDivElement }
  >();
  const show = (shown: Shown) => {
    text.textContent = shown.text;
    for (const tool of shown.tools) {
      let call = calls.get(tool.id);
      if (!call) {
        const outcome = el('div', { className: 'outcome' });
        const summary = el('summary');
        const details = el(
          'details',
          { className: 'tool' },
          summary,
          el('pre', { textContent: `arguments: ${JSON.stringify(tool.input, null, 2)}` }),
          outcome,
        );
        call = { details, summary, outcome };
        calls.set(tool.id, call);
        tools.append(details);
      }
      // A call that waits is shown open: the person deciding sees what it would do.
      if (tool.approval === 'waiting') call.details.open = true;
      call.summary.replaceChildren(...toolSummary(tool));
      call.outcome.replaceChildren(...toolOutcome(tool, shown.replyId, show));
    }
    // While a call waits, its approve/deny questions are the control above, not buttons that send words.
    const waits = shown.tools.some((tool) => tool.approval === 'waiting');
    renderQuestions(node, waits ? [] : shown.questions, shown.text);
    node.querySelector('.notes')?.remove();
    if (shown.notes.length > 0)
      node.append(el('div', { className: 'notes files', textContent: shown.notes.join('\n') }));
    node.querySelector('.error')?.remove();
    if (shown.error)
      node.append(el('div', { className: 'error files', textContent: `error: ${shown.error}` }));
  };
  return { node, show };
}

/** A call's one line, shown even when it is folded: its name and, once decided, the decision. */
function toolSummary(tool: Shown['tools'][number]): (HTMLElement | string)[] {
  const line: (HTMLElement | string)[] = [`tool ${tool.name}`];
  if (tool.approval && tool.approval !== 'waiting')
    line.push(' ', el('span', { className: `approval ${tool.approval}`, textContent: tool.approval }));
  return line;
}

/** Under a call: the approve/deny control while it waits, then its result or error. */
function toolOutcome(
  tool: Shown['tools'][number],
  replyId: string | undefined,
  show: (shown: Shown) => void,
) {
  const shown: HTMLElement[] = [];
  if (tool.approval === 'waiting' && replyId) {
    const box = el('div', { className: 'approval' }, 'Waits for your approval ');
    for (const [label, decision] of [
      ['Approve', 'approve'],
      ['Deny', 'deny'],
    ] as const) {
      const button = el('button', { textContent: label, type: 'button', className: decision });
      button.addEventListener('click', () => {
        for (const other of box.querySelectorAll('button')) other.disabled = true;
        void decide(replyId, tool.id, decision, show).catch(showError);
      });
      box.append(button);
    }
    shown.push(box);
  }
  if (tool.error !== undefined) shown.push(el('pre', { textContent: `error: ${tool.error}` }));
  // A denied call never ran: what the model read instead is not its result.
  else if (tool.output !== undefined && tool.approval !== 'denied')
    shown.push(el('pre', { textContent: `result: ${printable(tool.output)}` }));
  return shown;
}

/**
 * Records the decision through the approvals route, then follows the reply's own stream from its start (the
 * decision, the tool's output, the rest of the reply), redrawing its bubble from the lines so far.
 */
async function decide(
  replyId: string,
  callId: string,
  decision: 'approve' | 'deny',
  show: (shown: Shown) => void,
): Promise<void> {
  if (!user) throw new Error('Connect with a service key first');
  statusLine.textContent = '';
  await user.decide(replyId, callId, decision);
  const lines: Line[] = [];
  for await (const line of user.replyLines(replyId)) {
    lines.push(line);
    show(fromLines(replyId, lines));
  }
  await refreshThreads();
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
  question.show({ text: content, tools: [], questions: [], notes: [] });
  const reply = messageBubble('assistant');
  following = true;
  log.append(question.node, reply.node);
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

/**
 * The log stays on the newest message while it grows (a streaming reply, a decision's outcome) and while it
 * shrinks (a phone's keyboard opening), until the user scrolls up; scrolled back to the end, it follows again.
 */
const NEAR_END_PX = 24;
log.addEventListener('scroll', () => {
  following = log.scrollHeight - log.scrollTop - log.clientHeight <= NEAR_END_PX;
});
// A wheel turned up, a finger drawn down or a key that scrolls up says so before its scroll event arrives: a word
// streamed in between would otherwise take the log back to the end, and that event would then read "at the end".
log.addEventListener('wheel', (event) => event.deltaY < 0 && (following = false), { passive: true });
let touchY = 0;
log.addEventListener('touchstart', (event) => (touchY = event.touches[0].clientY), { passive: true });
log.addEventListener('touchmove', (event) => event.touches[0].clientY > touchY && (following = false), {
  passive: true,
});
const KEYS_UP = new Set(['ArrowUp', 'PageUp', 'Home']);
log.addEventListener('keydown', (event) => KEYS_UP.has(event.key) && (following = false));
const toNewest = () => {
  if (following) log.scrollTop = log.scrollHeight;
};
new MutationObserver(toNewest).observe(log, { childList: true, subtree: true, characterData: true });
new ResizeObserver(toNewest).observe(log);

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
