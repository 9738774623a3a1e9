import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserContext, chromium, Page } from 'playwright-core';
import { createOrg, OrgFixture } from '../factories/admin';
import { api } from '../support/http';
import { AppProcess, startGateway, startWorker } from '../support/processes';
import { createTestEnvironment, TestEnvironment } from '../support/test-environment';

/**
 * The playground at /playground driven in Debian's Chromium (no browser download): a whole conversation with
 * the builtin model through real gateway and worker processes, the page chatting as a customer's front end
 * would (an end-user token, the AI SDK's client on /ai-sdk/chat). The screenshot is kept in docs/.
 */
const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = join(__dirname, '..', '..', 'docs', 'playground.png');
const USER = 'browser-user';

let environment: TestEnvironment;
let gateway: AppProcess;
let worker: AppProcess;
let org: OrgFixture;
let browser: BrowserContext;
let page: Page;
let profile: string;
/** Every answer the page got that was a 404 (a missing favicon was one). */
const notFound: string[] = [];
/** The credential each API call of the page carried, by path. */
const credentials: { path: string; credential: string }[] = [];

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`Chromium is not installed at ${CHROMIUM}: apt-get install -y chromium (see .ci/run)`);
  }
  environment = await createTestEnvironment();
  // One after the other: on a loaded machine two cold starts at once can each miss their start deadline.
  gateway = await startGateway(environment.env);
  worker = await startWorker(environment.env, { WORKER_HEALTH_PORT: '0' });
  org = await createOrg(environment.env);
  for (const agent of [
    { name: 'Playground helper' },
    { name: 'Careful helper', approval_required: ['clock'] },
  ]) {
    const created = await api(gateway.url!, org.key).post('/agents', agent);
    if (created.status !== 200) throw new Error(`POST /agents: ${JSON.stringify(created.body)}`);
  }
  profile = mkdtempSync(join(tmpdir(), 'parley-chromium-'));
  // A fresh profile for each run (Playwright passes it to Chromium as --user-data-dir).
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1200, height: 760 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  page.on('response', (response) => {
    if (response.status() === 404) notFound.push(response.url());
  });
  page.on('request', (request) => {
    const credential = request.headers()['authorization'] ?? request.headers()['x-service-token'];
    if (credential) credentials.push({ path: new URL(request.url()).pathname, credential });
  });
});

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await Promise.all([gateway?.stop(), worker?.stop()]);
  await environment?.dispose();
});

const lastAssistant = () => page.locator('.message.assistant').last();

/** Polls the page until the check holds (each Playwright wait has its own timeout; this one is the test's). */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 25));
}

/** Where the page's parts are: the page must fit the window, the message pane scroll. */
interface PageLayout {
  pageWidth: number;
  pageHeight: number;
  windowHeight: number;
  logScrolls: boolean;
  send: { right: number; bottom: number };
  inputWidth: number;
}
const PAGE_LAYOUT = `(() => {
  const log = document.getElementById('log');
  const send = document.getElementById('send').getBoundingClientRect();
  return {
    pageWidth: document.documentElement.scrollWidth,
    pageHeight: document.documentElement.scrollHeight,
    windowHeight: window.innerHeight,
    logScrolls: log.scrollHeight > log.clientHeight,
    send: { right: send.right, bottom: send.bottom },
    inputWidth: document.getElementById('input').getBoundingClientRect().width,
  };
})()`;

/** How far the log's end is below its visible part (0: the newest message is in view). */
const LOG_GAP = `(() => {
  const log = document.getElementById('log');
  return log.scrollHeight - log.scrollTop - log.clientHeight;
})()`;

const assistantCount = () => page.locator('.message.assistant').count();

async function send(text: string): Promise<void> {
  await page.fill('#input', text);
  await page.click('#send');
}

describe('the browser playground', () => {
  it('connects with a pasted key and lists the organization’s agents', async () => {
    await page.goto(`${gateway.url}/playground`);
    await page.fill('#key', org.key);
    await page.fill('#user', USER);
    await page.click('#connect');
    await page.waitForSelector('#agent option', { state: 'attached' });
    expect((await page.locator('#agent option').allTextContents()).sort()).toEqual([
      'Careful helper',
      'Playground helper',
    ]);
    await page.selectOption('#agent', { label: 'Playground helper' });
    // The key stays in the page's memory: nothing in storage or cookies.
    expect(await page.evaluate('localStorage.length + sessionStorage.length')).toBe(0);
    expect(await page.context().cookies()).toEqual([]);
    // The key lists agents and mints the user's token; nothing else.
    const keyed = credentials.filter(({ credential }) => credential.includes(org.key));
    expect([...new Set(keyed.map(({ path }) => path))].sort()).toEqual(['/agents', '/end-user-tokens']);
  });

  it('streams the reply word by word into the page', async () => {
    await send('/sleep 150\n/say one two three four five six seven eight');
    const reply = lastAssistant().locator('.text');
    // Part of the reply is on screen before the rest has arrived.
    let partial = '';
    await until(async () => (partial = (await reply.textContent()) ?? '').includes('one'));
    expect(partial).not.toContain('eight');
    await until(async () => ((await reply.textContent()) ?? '').includes('eight'));
    expect(await reply.textContent()).toBe('one two three four five six seven eight');
    await page.waitForSelector('#threads li');
    // The chat went through the AI SDK's protocol, with the end user's token.
    const chats = credentials.filter(({ path }) => path === '/ai-sdk/chat');
    expect(chats.length).toBeGreaterThan(0);
    for (const { credential } of chats) expect(credential).toMatch(/^Bearer eut_/);
  });

  it('folds out tool calls and their results', async () => {
    await send('/tool clock {}');
    const tool = lastAssistant().locator('details.tool');
    await tool.locator('pre', { hasText: 'result:' }).waitFor({ state: 'attached' });
    expect(await tool.locator('summary').textContent()).toContain('clock');
    await tool.locator('summary').click();
    expect(await tool.getAttribute('open')).not.toBeNull();
  });

  it('shows questions as buttons, and a button sends its option', async () => {
    await send('/ask Which colour? | red | blue');
    await lastAssistant().locator('.questions button', { hasText: 'red' }).waitFor();
    // The prompt is shown once: the reply's text says it, the buttons do not repeat it.
    const shown = (await lastAssistant().innerText()).split('Which colour?').length - 1;
    expect(shown).toBe(1);
    await lastAssistant().locator('.questions button', { hasText: 'red' }).click();
    await page.locator('.message.user .text', { hasText: /^red$/ }).waitFor();
    await until(async () => (await assistantCount()) >= 4);
    // The bubbles show at once; the reply's first words say the message is stored.
    await lastAssistant().locator('.text', { hasText: /\S/ }).waitFor();
    const threadId = await page.locator('#threads li.current').getAttribute('data-thread-id');
    const thread = await api(gateway.url!, org.key).get(`/chat/${threadId}?user_id=${USER}`);
    expect(thread.body.messages.filter((m: { role: string }) => m.role === 'user').at(-1).content).toBe(
      'red',
    );
  });

  it('attaches a file through the two-step upload', async () => {
    await page.setInputFiles('#file', {
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('The meeting is on Tuesday.'),
    });
    await send('What does the file say?');
    await page.locator('.message.user .files', { hasText: 'notes.txt' }).waitFor();
    const threadId = await page.locator('#threads li.current').getAttribute('data-thread-id');
    await until(async () => (await assistantCount()) >= 5);
    await lastAssistant().locator('.text', { hasText: /\S/ }).waitFor();
    const thread = await api(gateway.url!, org.key).get(`/chat/${threadId}?user_id=${USER}`);
    const withFile = thread.body.messages.find((m: { files: { name: string }[] }) => m.files.length > 0);
    expect(withFile.files[0]).toMatchObject({ name: 'notes.txt', mimetype: 'text/plain' });
    expect(await page.locator('#status').textContent()).toBe('');
  });

  it('renames, stars and archives threads from the list', async () => {
    page.once('dialog', (dialog) => void dialog.accept('Colours and notes'));
    await page.locator('#threads li.current button[title="Rename"]').click();
    await page.locator('#threads li span', { hasText: 'Colours and notes' }).waitFor();
    expect(await page.locator('#threads li.current button[title="Star"]').textContent()).toBe('☆');
    await page.locator('#threads li.current button[title="Star"]').click();
    await page.locator('#threads li span', { hasText: '★ Colours and notes' }).waitFor();
    // Starred shows the filled star.
    expect(await page.locator('#threads li.current button[title="Unstar"]').textContent()).toBe('★');
    await page.locator('#threads li.current button[title="Archive"]').click();
    await until(async () => (await page.locator('#threads li').count()) === 0);
    expect((await api(gateway.url!, org.key).get(`/chat?user_id=${USER}`)).body).toEqual([]);
  });

  it('keeps the composer in the window with a thread longer than the window: the messages scroll', async () => {
    const before = await assistantCount();
    for (let turn = 1; turn <= 8; turn++) {
      await send(`Turn ${turn}, a message\nover several\nlines\n/say Answer ${turn}, the reply to it.`);
      await until(async () => (await assistantCount()) >= before + turn);
      await lastAssistant()
        .locator('.text', { hasText: `Answer ${turn},` })
        .waitFor();
    }
    // A string, evaluated in the page: this file is compiled without the DOM's types.
    const layout = await page.evaluate<PageLayout>(PAGE_LAYOUT);
    expect(layout.logScrolls).toBe(true);
    expect(layout.pageHeight).toBeLessThanOrEqual(layout.windowHeight);
    expect(layout.send.bottom).toBeLessThanOrEqual(layout.windowHeight);
    // The newest reply is the one in view.
    expect(await lastAssistant().isVisible()).toBe(true);
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
  });

  it('is usable in a 420 px wide window', async () => {
    await page.setViewportSize({ width: 420, height: 760 });
    const layout = await page.evaluate<PageLayout>(PAGE_LAYOUT);
    expect(layout.pageWidth).toBeLessThanOrEqual(420);
    expect(layout.pageHeight).toBeLessThanOrEqual(layout.windowHeight);
    expect(layout.send.right).toBeLessThanOrEqual(420);
    expect(layout.send.bottom).toBeLessThanOrEqual(layout.windowHeight);
    expect(layout.inputWidth).toBeGreaterThan(300);
    const before = await assistantCount();
    await send('/say Small screens work too.');
    await until(async () => (await assistantCount()) > before);
    await lastAssistant().locator('.text', { hasText: 'Small screens work too.' }).waitFor();
    await page.setViewportSize({ width: 1200, height: 760 });
  });

  it('keeps the newest message in view on a phone as the reply streams and the window shrinks', async () => {
    await page.setViewportSize({ width: 420, height: 760 });
    await send(`/sleep 300\n/say ${'a longer reply that wraps over several lines on a phone '.repeat(3)}END`);
    await until(async () => (await page.evaluate<number>(LOG_GAP)) <= 1);
    await lastAssistant().locator('.text', { hasText: 'END' }).waitFor();
    expect(await page.evaluate<number>(LOG_GAP)).toBeLessThanOrEqual(1);
    // An on-screen keyboard takes half the window: the newest message stays in view.
    await page.setViewportSize({ width: 420, height: 420 });
    await until(async () => (await page.evaluate<number>(LOG_GAP)) <= 1);
    // Scrolled up with a finger while words still stream (a word every 8 ms), the log stays where the finger left
    // it: the words that follow must not take it back to the end.
    const streaming = await assistantCount();
    await send(`/sleep 8\n/say ${'words that keep coming while a finger scrolls up '.repeat(20)}DONE`);
    await until(async () => (await assistantCount()) > streaming);
    await lastAssistant().locator('.text', { hasText: 'coming' }).waitFor();
    const log = (await page.locator('#log').boundingBox())!;
    const touch = await page.context().newCDPSession(page);
    await touch.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 1 });
    const x = Math.round(log.x + log.width / 2);
    const y = Math.round(log.y + log.height / 3);
    await touch.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x, y }] });
    for (let moved = 30; moved <= 240; moved += 30)
      await touch.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [{ x, y: y + moved }] });
    await touch.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await lastAssistant().locator('.text', { hasText: 'DONE' }).waitFor();
    expect(await page.evaluate<number>(LOG_GAP)).toBeGreaterThan(100);
    await touch.send('Emulation.setTouchEmulationEnabled', { enabled: false });
    await touch.detach();
    // Scrolled up with the wheel once the reply has ended, the log stays at the top.
    const before = await assistantCount();
    await send('/say one two three four five six seven eight nine ten');
    await until(async () => (await assistantCount()) > before);
    await lastAssistant().locator('.text', { hasText: 'ten' }).waitFor();
    const box = (await page.locator('#log').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -100000);
    await until(async () => (await page.evaluate<number>("document.getElementById('log').scrollTop")) === 0);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await page.evaluate<number>("document.getElementById('log').scrollTop")).toBe(0);
    await page.setViewportSize({ width: 1200, height: 760 });
  });

  describe('a tool call that waits for a person (CONTRACTS §19)', () => {
    /** A new thread with the agent whose clock calls need approval, and a call that waits. */
    async function waitingCall(): Promise<ReturnType<Page['locator']>> {
      await page.selectOption('#agent', { label: 'Careful helper' });
      await page.click('#new-thread');
      await send('/tool clock {"zone": "UTC"}');
      const control = lastAssistant().locator('.approval', { hasText: 'Waits for your approval' });
      await control.waitFor();
      return control;
    }

    async function storedReplyOf(): Promise<{ status: string; content: string; events: { type: string }[] }> {
      await page.locator('#threads li.current').waitFor();
      const threadId = await page.locator('#threads li.current').getAttribute('data-thread-id');
      const thread = await api(gateway.url!, org.key).get(`/chat/${threadId}?user_id=${USER}`);
      return thread.body.messages.at(-1);
    }

    it('shows the waiting call with its arguments, and Approve runs it and completes the reply', async () => {
      const control = await waitingCall();
      const tool = lastAssistant().locator('details.tool');
      expect(await tool.locator('summary').textContent()).toContain('clock');
      expect(await tool.locator('pre').first().textContent()).toContain('"zone": "UTC"');
      expect(await tool.getAttribute('open')).not.toBeNull();
      // The approve/deny control, not question buttons that would post the words as a message.
      expect(await lastAssistant().locator('.questions').count()).toBe(0);
      expect((await storedReplyOf()).status).toBe('requires_action');
      const before = await assistantCount();
      await control.locator('button', { hasText: 'Approve' }).click();
      await tool.locator('.approval.approved', { hasText: 'approved' }).waitFor();
      await tool.locator('pre', { hasText: 'result:' }).waitFor();
      await until(async () => (await storedReplyOf()).status === 'success');
      const stored = await storedReplyOf();
      await lastAssistant().locator('.text', { hasText: stored.content }).waitFor();
      expect(stored.content.length).toBeGreaterThan(0);
      // No message was posted: the same reply went on.
      expect(await assistantCount()).toBe(before);
      expect(await page.locator('.message.user .text', { hasText: /^approve$/ }).count()).toBe(0);
      const decided = stored.events.filter((event) => event.type === 'approval.decided');
      expect(decided).toEqual([expect.objectContaining({ decision: 'approve' })]);
      // The page decided with the end user's token, through the approvals route.
      const decisions = credentials.filter(({ path }) => path.endsWith('/approvals'));
      expect(decisions).toHaveLength(1);
      expect(decisions[0].credential).toMatch(/^Bearer eut_/);
    });

    it('shows a denied call as denied, and the reply that follows', async () => {
      const control = await waitingCall();
      await control.locator('button', { hasText: 'Deny' }).click();
      const tool = lastAssistant().locator('details.tool');
      await tool.locator('.approval.denied', { hasText: 'denied' }).waitFor();
      await until(async () => (await storedReplyOf()).status === 'success');
      const stored = await storedReplyOf();
      expect(stored.content).toContain('denied');
      await lastAssistant().locator('.text', { hasText: stored.content }).waitFor();
      // The tool never ran: there is no result to show.
      expect(await tool.locator('pre', { hasText: 'result:' }).count()).toBe(0);
    });

    it('shows the control again for a call still waiting after a reload, and decides it there', async () => {
      await waitingCall();
      const threadId = await page.locator('#threads li.current').getAttribute('data-thread-id');
      await page.reload();
      await page.fill('#key', org.key);
      await page.fill('#user', USER);
      await page.click('#connect');
      await page.locator(`#threads li[data-thread-id="${threadId}"] span`).click();
      const control = lastAssistant().locator('.approval', { hasText: 'Waits for your approval' });
      await control.waitFor();
      expect(await lastAssistant().locator('.questions').count()).toBe(0);
      expect(await lastAssistant().locator('details.tool pre').first().textContent()).toContain('"zone"');
      await control.locator('button', { hasText: 'Approve' }).click();
      await lastAssistant().locator('.approval.approved').waitFor();
      await lastAssistant().locator('details.tool pre', { hasText: 'result:' }).waitFor();
      await until(async () => (await storedReplyOf()).status === 'success');
      await lastAssistant()
        .locator('.text', { hasText: (await storedReplyOf()).content })
        .waitFor();
      // Reopened once decided: the decision and the result, no control.
      await page.locator(`#threads li[data-thread-id="${threadId}"] span`).click();
      await lastAssistant().locator('.approval.approved').waitFor();
      expect(await lastAssistant().locator('.approval button').count()).toBe(0);
    });
  });

  it('has a favicon, and the page met no 404', async () => {
    const icon = await fetch(`${gateway.url}/playground/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/playground/favicon.svg');
    expect(notFound).toEqual([]);
  });
});
