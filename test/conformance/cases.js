/*
 * The conformance cases: requests only, never answers. `npm run conformance:record` sends each to the FastAPI
 * reference app (app.py) and writes what it answered to goldens.json; the jest suite sends the same requests to
 * the real gateway. A case is { id, method, path, query?, body?, raw?, content_type? }: `query` is the raw query
 * string, `body` is sent as JSON, `raw` is sent as is with content-type `content_type` (application/json).
 * Run `node test/conformance/cases.js` to print them as JSON.
 */
/* global module, require, process */
'use strict';

const THREAD = '0190a5b2-4c6e-7d1f-8a2b-3c4d5e6f7a8b';
const FILE = '0190a5b2-4c6e-7d1f-8a2b-3c4d5e6f7a8c';
const LINK = '0190a5b2-4c6e-7d1f-8a2b-3c4d5e6f7a8d';
const ID = '0190a5b2-4c6e-7d1f-8a2b-3c4d5e6f7a8e';
const MESSAGE = '0190a5b2-4c6e-7d1f-8a2b-3c4d5e6f7a8f';
const AGENT = 'agent-1';

const cases = [];
const add = (id, method, path, extra = {}) => cases.push({ id, method, path, ...extra });

const start = (patch = {}) => ({
  message: { content: 'hello', ...(patch.message ?? {}) },
  options: { agent_id: AGENT, user_id: 'alice', ...(patch.options ?? {}) },
  ...Object.fromEntries(Object.entries(patch).filter(([k]) => k !== 'message' && k !== 'options')),
});

// Values of every JSON type, to try where a field wants another.
const WRONG = { int: 7, float: 7.5, bool: true, str: 'x', list: [1], object: { a: 1 }, null: null };
const wrongBut = (...keep) => Object.entries(WRONG).filter(([name]) => !keep.includes(name));

// ---- POST /chat: the body as a whole --------------------------------------------------------------------
add('chat.body.list', 'POST', '/chat', { raw: '[1, 2]' });
add('chat.body.string', 'POST', '/chat', { raw: '"text"' });
add('chat.body.number', 'POST', '/chat', { raw: '42' });
add('chat.body.true', 'POST', '/chat', { raw: 'true' });
add('chat.body.null', 'POST', '/chat', { raw: 'null' });
add('chat.body.empty-object', 'POST', '/chat', { body: {} });
// JSON sent under another media type: FastAPI validates the bytes as they are (never a 415).
const START_JSON = JSON.stringify(start());
add('chat.body.text-plain', 'POST', '/chat', { raw: START_JSON, content_type: 'text/plain' });
add('chat.body.form', 'POST', '/chat', {
  raw: 'message=hi',
  content_type: 'application/x-www-form-urlencoded',
});
add('chat.body.xml', 'POST', '/chat', { raw: '<chat/>', content_type: 'application/xml' });
// A form as multipart: FastAPI reads a JSON model's body as the bytes too (issue 35: the gateway said `missing`).
const MULTIPART =
  '--b0undary\r\nContent-Disposition: form-data; name="message"\r\n\r\nhi\r\n--b0undary--\r\n';
add('chat.body.multipart', 'POST', '/chat', {
  raw: MULTIPART,
  content_type: 'multipart/form-data; boundary=b0undary',
});
add('message.body.multipart', 'POST', `/chat/${THREAD}`, {
  raw: MULTIPART,
  content_type: 'multipart/form-data; boundary=b0undary',
});
add('chat.body.missing-options', 'POST', '/chat', { body: { message: { content: 'hi' } } });
add('chat.body.missing-message', 'POST', '/chat', { body: { options: { agent_id: AGENT, user_id: 'a' } } });
add('chat.body.empty-message-and-options', 'POST', '/chat', { body: { message: {}, options: {} } });

// ---- JSON that does not parse (Python's json decoder messages) -------------------------------------------
const BROKEN = {
  'trailing-comma-object': '{"message": {"content": "hi"},',
  'trailing-comma-in-object': '{"message": {"content": "hi"},}',
  'unquoted-key': '{message: 1}',
  'single-quotes': "{'message': 1}",
  'missing-colon': '{"message" 1}',
  'missing-comma': '{"a": 1 "b": 2}',
  'unterminated-string': '{"message": "hi',
  'bad-escape': '{"a": "\\x"}',
  'bad-unicode-escape': '{"a": "\\u12"}',
  'control-char': '{"a": "x\ny"}',
  'extra-data': '{"a": 1} {"b": 2}',
  'just-a-brace': '{',
  'just-a-word': 'hello',
  'leading-garbage': 'x{"a": 1}',
  'trailing-garbage': '{"a": 1}x',
  'array-trailing-comma': '{"a": [1, 2,]}',
  'missing-value': '{"a": }',
  'non-ascii-before-error': '{"a": "héllo", }',
};
for (const [name, raw] of Object.entries(BROKEN)) add(`json.${name}`, 'POST', '/chat', { raw });

// ---- POST /chat: message -------------------------------------------------------------------------------
for (const [name, value] of wrongBut()) {
  add(`chat.message.${name}`, 'POST', '/chat', { body: { ...start(), message: value } });
}
add('chat.message.content.missing', 'POST', '/chat', { body: start({ message: { content: undefined } }) });
for (const [name, value] of wrongBut('str')) {
  add(`chat.message.content.${name}`, 'POST', '/chat', { body: start({ message: { content: value } }) });
}
add('chat.message.content.too-long', 'POST', '/chat', {
  body: start({ message: { content: 'x'.repeat(30001) } }),
});
add('chat.message.content.nul', 'POST', '/chat', { body: start({ message: { content: 'a\u0000b' } }) });

for (const [name, value] of wrongBut('list', 'null')) {
  add(`chat.message.source_ids.${name}`, 'POST', '/chat', {
    body: start({ message: { source_ids: value } }),
  });
}
add('chat.message.source_ids.items', 'POST', '/chat', {
  body: start({ message: { source_ids: [1, 'x', 2.5, true, null, '7', [1], { a: 1 }, '3.0', ' 4 '] } }),
});
add('chat.message.source_ids.huge-string', 'POST', '/chat', {
  body: start({ message: { source_ids: ['1'.repeat(4301)] } }),
});

for (const [name, value] of wrongBut('list', 'null')) {
  add(`chat.message.document_ids.${name}`, 'POST', '/chat', {
    body: start({ message: { document_ids: value } }),
  });
}
add('chat.message.document_ids.items', 'POST', '/chat', {
  body: start({ message: { document_ids: ['a', 1, null, 'b', false, { a: 1 }, 'c\u0000'] } }),
});

for (const [name, value] of wrongBut('list', 'null')) {
  add(`chat.message.disabled_tools.${name}`, 'POST', '/chat', {
    body: start({ message: { disabled_tools: value } }),
  });
}
add('chat.message.disabled_tools.unknown', 'POST', '/chat', {
  body: start({ message: { disabled_tools: ['web', 'shell'] } }),
});
add('chat.message.disabled_tools.items', 'POST', '/chat', {
  body: start({
    message: { disabled_tools: [1, 'company_documents', null, 'MCP:x', 'mcp:', 'Web', 'mcp:a\u0000'] },
  }),
});

for (const [name, value] of wrongBut('list', 'null')) {
  add(`chat.message.file_ids.${name}`, 'POST', '/chat', { body: start({ message: { file_ids: value } }) });
}
add('chat.message.file_ids.six', 'POST', '/chat', {
  body: start({ message: { file_ids: ['a', 'b', 'c', 'd', 'e', 'f'] } }),
});
add('chat.message.file_ids.duplicate', 'POST', '/chat', {
  body: start({ message: { file_ids: ['a', 'a'] } }),
});
add('chat.message.file_ids.items', 'POST', '/chat', {
  body: start({ message: { file_ids: ['a', 2, null] } }),
});
add('chat.message.file_ids.six-with-bad-item', 'POST', '/chat', {
  body: start({ message: { file_ids: ['a', 'b', 3, 'd', 'e', 'f'] } }),
});

// ---- POST /chat: options --------------------------------------------------------------------------------
for (const [name, value] of wrongBut()) {
  add(`chat.options.${name}`, 'POST', '/chat', { body: { ...start(), options: value } });
}
for (const field of ['agent_id', 'user_id']) {
  add(`chat.options.${field}.missing`, 'POST', '/chat', { body: start({ options: { [field]: undefined } }) });
  for (const [name, value] of wrongBut('str')) {
    add(`chat.options.${field}.${name}`, 'POST', '/chat', { body: start({ options: { [field]: value } }) });
  }
}
const MAX_STEPS = {
  zero: 0,
  negative: -3,
  float: 2.5,
  'float-whole': 3.0,
  'string-int': '5',
  'string-zero': '0',
  'string-float': '2.5',
  'string-word': 'many',
  'string-blank': ' ',
  'string-spaced': ' 7 ',
  'string-plus': '+8',
  'string-underscore': '1_000',
  'string-whole-float': '4.0',
  true: true,
  false: false,
  null: null,
  list: [1],
  object: { n: 1 },
};
for (const [name, value] of Object.entries(MAX_STEPS)) {
  add(`chat.options.max_steps.${name}`, 'POST', '/chat', { body: start({ options: { max_steps: value } }) });
}
for (const [name, value] of wrongBut('str', 'null')) {
  add(`chat.options.memory_namespace.${name}`, 'POST', '/chat', {
    body: start({ options: { memory_namespace: value } }),
  });
}
add('chat.options.memory_namespace.too-long', 'POST', '/chat', {
  body: start({ options: { memory_namespace: 'n'.repeat(129) } }),
});
add('chat.options.memory_namespace.null', 'POST', '/chat', {
  body: start({ options: { memory_namespace: null } }),
});
for (const field of ['name', 'project_id']) {
  for (const [name, value] of wrongBut('str', 'null')) {
    add(`chat.${field}.${name}`, 'POST', '/chat', { body: start({ [field]: value }) });
  }
  add(`chat.${field}.null`, 'POST', '/chat', { body: start({ [field]: null }) });
  add(`chat.${field}.nul`, 'POST', '/chat', { body: start({ [field]: 'x\u0000' }) });
}
add('chat.many-errors-at-once', 'POST', '/chat', {
  body: {
    name: 1,
    message: { content: 2, source_ids: ['a'], file_ids: 'x' },
    options: { max_steps: 0, memory_namespace: 3 },
  },
});
add('chat.valid.minimal', 'POST', '/chat', { body: start() });
add('chat.valid.unknown-fields', 'POST', '/chat', { body: start({ surprise: true }) });
add('chat.valid.everything', 'POST', '/chat', {
  body: start({
    name: 'n',
    project_id: 'p',
    message: {
      content: 'x'.repeat(30000),
      source_ids: [1, '2', 3.0],
      document_ids: ['d'],
      disabled_tools: ['web', 'company_documents', 'mcp:github'],
      file_ids: [],
    },
    options: { max_steps: '3', memory_namespace: 'n'.repeat(128) },
  }),
});
add('chat.valid.nulls', 'POST', '/chat', {
  body: start({
    name: null,
    project_id: null,
    message: { source_ids: null, document_ids: null, disabled_tools: null, file_ids: null },
    options: { memory_namespace: null },
  }),
});
add('chat.valid.max-steps-true', 'POST', '/chat', { body: start({ options: { max_steps: true } }) });

// ---- POST /chat/{thread_id} -------------------------------------------------------------------------------
const follow = (patch = {}) => ({ message: { content: 'again' }, ...patch });
add('post.valid', 'POST', `/chat/${THREAD}`, { body: follow() });
add('post.valid.options', 'POST', `/chat/${THREAD}`, {
  body: follow({ options: { user_id: 'u', max_steps: '2', memory_namespace: null } }),
});
add('post.valid.options-null', 'POST', `/chat/${THREAD}`, { body: follow({ options: null }) });
add('post.body.empty', 'POST', `/chat/${THREAD}`, { body: {} });
add('post.message.null', 'POST', `/chat/${THREAD}`, { body: { message: null } });
add('post.options.list', 'POST', `/chat/${THREAD}`, { body: follow({ options: [] }) });
add('post.options.max_steps.null', 'POST', `/chat/${THREAD}`, {
  body: follow({ options: { max_steps: null } }),
});
add('post.options.max_steps.zero', 'POST', `/chat/${THREAD}`, {
  body: follow({ options: { max_steps: 0 } }),
});
add('post.options.max_steps.float', 'POST', `/chat/${THREAD}`, {
  body: follow({ options: { max_steps: 1.5 } }),
});
add('post.options.user_id.int', 'POST', `/chat/${THREAD}`, { body: follow({ options: { user_id: 5 } }) });
add('post.options.memory_namespace.too-long', 'POST', `/chat/${THREAD}`, {
  body: follow({ options: { memory_namespace: 'n'.repeat(129) } }),
});
add('post.message.content.missing', 'POST', `/chat/${THREAD}`, { body: { message: {} } });

// ---- thread ids in the path -----------------------------------------------------------------------------------
const BAD_UUIDS = {
  word: 'abc',
  short: '0190a5b2-4c6e-7d1f-8a2b',
  'bad-char': '0190a5b2-4c6e-7d1f-8a2b-3c4d5e6f7a8z',
  'long-group': '0190a5b2-4c6e-7d1f-8a2b-3c4d5e6f7a8bb',
  'short-group': '0190a5b-24c6e-7d1f-8a2b-3c4d5e6f7a8b',
  number: '12345',
  'too-many-groups': '0190a5b2-4c6e-7d1f-8a2b-3c4d-5e6f7a8b',
};
for (const [name, value] of Object.entries(BAD_UUIDS)) {
  add(`thread.get.id.${name}`, 'GET', `/chat/${value}`);
}
add('thread.get.valid', 'GET', `/chat/${THREAD}`);
add('thread.get.valid.upper', 'GET', `/chat/${THREAD.toUpperCase()}`);
add('thread.get.valid.simple', 'GET', `/chat/${THREAD.replace(/-/g, '')}`);
add('thread.get.valid.braced', 'GET', `/chat/{${THREAD}}`.replace('{', '%7B').replace('}', '%7D'));
add('thread.get.user_id.nul', 'GET', `/chat/${THREAD}`, { query: 'user_id=a%00b' });
add('thread.delete.id.word', 'DELETE', `/chat/nope`);
add('thread.post.id.word', 'POST', `/chat/nope`, { body: follow() });

// ---- PUT /chat/{thread_id} ----------------------------------------------------------------------------------------
add('thread.put.valid.empty', 'PUT', `/chat/${THREAD}`, { body: {} });
add('thread.put.valid.starred-strings', 'PUT', `/chat/${THREAD}`, { body: { starred: 'yes' } });
const STARRED = {
  'string-true': 'true',
  'string-off': 'off',
  'string-word': 'maybe',
  'string-TRUE': 'TRUE',
  'string-empty': '',
  one: 1,
  two: 2,
  zero: 0,
  float: 0.5,
  'float-one': 1.0,
  list: [true],
  object: {},
  null: null,
};
for (const [name, value] of Object.entries(STARRED)) {
  add(`thread.put.starred.${name}`, 'PUT', `/chat/${THREAD}`, { body: { starred: value } });
}
for (const [name, value] of Object.entries({ empty: '', long: 'n'.repeat(201), int: 3, nul: 'a\u0000' })) {
  add(`thread.put.name.${name}`, 'PUT', `/chat/${THREAD}`, { body: { name: value } });
}
add('thread.put.options.string', 'PUT', `/chat/${THREAD}`, { body: { options: 'u' } });
add('thread.put.body.list', 'PUT', `/chat/${THREAD}`, { raw: '[]' });
add('thread.put.id.word', 'PUT', `/chat/word`, { body: {} });

// ---- GET /chat -------------------------------------------------------------------------------------------------------
add('list.user_id.missing', 'GET', '/chat');
add('list.user_id.missing-with-limit', 'GET', '/chat', { query: 'limit=0' });
add('list.valid', 'GET', '/chat', { query: 'user_id=u' });
add('list.valid.limit', 'GET', '/chat', { query: 'user_id=u&limit=100' });
add('list.valid.limit-spaced', 'GET', '/chat', { query: 'user_id=u&limit=%205' });
add('list.valid.agent_ids', 'GET', '/chat', { query: `user_id=u&agent_ids=${ID}&agent_ids=${THREAD}` });
// The spec's form repeats the parameter; a comma list is one value that is not an agent id.
add('list.agent_ids.comma', 'GET', '/chat', { query: `user_id=u&agent_ids=${ID},${THREAD}` });
add('list.agent_ids.word', 'GET', '/chat', { query: 'user_id=u&agent_ids=a' });
add('list.valid.user_id-empty', 'GET', '/chat', { query: 'user_id=' });
for (const [name, value] of Object.entries({
  zero: '0',
  big: '101',
  negative: '-1',
  word: 'many',
  float: '2.5',
  'whole-float': '5.0',
  empty: '',
  huge: '1'.repeat(40),
})) {
  add(`list.limit.${name}`, 'GET', '/chat', { query: `user_id=u&limit=${value}` });
}
add('list.agent_ids.eleven', 'GET', '/chat', {
  query: `user_id=u&${Array.from({ length: 11 }, (_, i) => `agent_ids=a${i}`).join('&')}`,
});
add('list.agent_ids.nul', 'GET', '/chat', { query: `user_id=u&agent_ids=${ID}&agent_ids=b%00` });
add('list.user_id.nul', 'GET', '/chat', { query: 'user_id=%00' });
add('list.limit-and-agent-ids', 'GET', '/chat', {
  query: `user_id=u&limit=0&${Array.from({ length: 12 }, (_, i) => `agent_ids=a${i}`).join('&')}`,
});

// ---- the reply stream ------------------------------------------------------------------------------------------------
for (const [name, value] of Object.entries({
  word: 'x',
  below: '-2',
  float: '1.5',
  'forty-digits': '1'.repeat(40),
  'just-past-safe': '9007199254740992',
  empty: '',
})) {
  add(`stream.after.${name}`, 'GET', `/chat/messages/${MESSAGE}/stream`, { query: `after=${value}` });
}
add('stream.id.word', 'GET', '/chat/messages/nope/stream');
add('stream.id.and-after', 'GET', '/chat/messages/nope/stream', { query: 'after=x' });
add('stream.user_id.nul', 'GET', `/chat/messages/${MESSAGE}/stream`, { query: 'user_id=%00' });

// ---- files -----------------------------------------------------------------------------------------------------------
add('upload.valid', 'GET', '/chat/files/upload', { query: 'filename=a.pdf&mimetype=application/pdf' });
add('upload.missing-both', 'GET', '/chat/files/upload');
add('upload.filename.slash', 'GET', '/chat/files/upload', { query: 'filename=a/b&mimetype=text/plain' });
add('upload.filename.long', 'GET', '/chat/files/upload', {
  query: `filename=${'f'.repeat(256)}&mimetype=text/plain`,
});
add('upload.filename.long-with-slash', 'GET', '/chat/files/upload', {
  query: `filename=${'f'.repeat(255)}/&mimetype=text/plain`,
});
add('upload.filename.nul', 'GET', '/chat/files/upload', { query: 'filename=a%00b&mimetype=text/plain' });
add('upload.mimetype.bad', 'GET', '/chat/files/upload', { query: 'filename=a&mimetype=text' });
add('upload.mimetype.params', 'GET', '/chat/files/upload', {
  query: 'filename=a&mimetype=text/plain;charset=utf-8',
});
add('file.get.id.word', 'GET', '/chat/files/nope');
add('file.get.valid', 'GET', `/chat/files/${FILE}`);
const share = (body) => ({ body });
add('share.valid.empty', 'POST', `/chat/files/${FILE}/share_links`, share({}));
add(
  'share.valid.nulls',
  'POST',
  `/chat/files/${FILE}/share_links`,
  share({ expires_at: null, password: null }),
);
add(
  'share.valid.date',
  'POST',
  `/chat/files/${FILE}/share_links`,
  share({ expires_at: '2031-01-02T03:04:05Z' }),
);
for (const [name, value] of Object.entries({ empty: '', int: 5, long: 'p'.repeat(1025), nul: 'p\u0000' })) {
  add(`share.password.${name}`, 'POST', `/chat/files/${FILE}/share_links`, share({ password: value }));
}
for (const [name, value] of Object.entries({ word: 'soon', int: true, list: [] })) {
  add(`share.expires_at.${name}`, 'POST', `/chat/files/${FILE}/share_links`, share({ expires_at: value }));
}
add('share.file_id.word', 'POST', '/chat/files/nope/share_links', share({}));
add('share.revoke.valid', 'DELETE', `/chat/files/${FILE}/share_links/${LINK}`);
add('share.revoke.link_id.word', 'DELETE', `/chat/files/${FILE}/share_links/nope`);
add('share.revoke.both-words', 'DELETE', '/chat/files/nope/share_links/nada');

// ---- memory ----------------------------------------------------------------------------------------------------------
add('memory.read.valid', 'GET', '/memory/file', { query: 'namespace=n&path=notes/a.md' });
add('memory.read.path.missing', 'GET', '/memory/file', { query: 'namespace=n' });
for (const [name, value] of Object.entries({
  'two-folders': 'a/b/c',
  dotdot: '..',
  'empty-segment': 'a//b',
  empty: '',
  long: 'p'.repeat(513),
  'long-and-bad': `${'p'.repeat(513)}/a/b`,
  nul: 'a%00',
})) {
  add(`memory.read.path.${name}`, 'GET', '/memory/file', { query: `namespace=n&path=${value}` });
}
add('memory.read.namespace.long', 'GET', '/memory/file', { query: `namespace=${'n'.repeat(129)}&path=a` });
add('memory.read.namespace.nul', 'GET', '/memory/file', { query: 'namespace=a%00&path=a' });
add('memory.list.folder.bad', 'GET', '/memory/files', { query: 'namespace=n&folder=a/b' });
add('memory.list.valid', 'GET', '/memory/files', { query: 'namespace=n&folder=a' });
const memoryFile = (patch = {}) => ({ namespace: 'n', path: 'a.md', content: 'c', purpose: 'p', ...patch });
add('memory.write.valid', 'PUT', '/memory/file', { body: memoryFile() });
add('memory.write.valid.version-null', 'PUT', '/memory/file', { body: memoryFile({ version: null }) });
add('memory.write.empty', 'PUT', '/memory/file', { body: {} });
for (const field of ['path', 'content', 'purpose']) {
  for (const [name, value] of wrongBut('str')) {
    add(`memory.write.${field}.${name}`, 'PUT', '/memory/file', { body: memoryFile({ [field]: value }) });
  }
}
add('memory.write.path.bad', 'PUT', '/memory/file', { body: memoryFile({ path: 'a/b/c' }) });
add('memory.write.content.long', 'PUT', '/memory/file', {
  body: memoryFile({ content: 'c'.repeat(262145) }),
});
add('memory.write.content.nul', 'PUT', '/memory/file', { body: memoryFile({ content: '\u0000' }) });
add('memory.write.purpose.long', 'PUT', '/memory/file', { body: memoryFile({ purpose: 'p'.repeat(1001) }) });
add('memory.write.version.int', 'PUT', '/memory/file', { body: memoryFile({ version: 3 }) });
add('memory.write.namespace.long', 'PUT', '/memory/file', {
  body: memoryFile({ namespace: 'n'.repeat(129) }),
});

// ---- connections -----------------------------------------------------------------------------------------------------
// draganddrop: a drive connection without credentials is refused by the service after validation.
const connection = (patch = {}) => ({ name: 'drive', kind: 'draganddrop', ...patch });
add('connection.valid', 'POST', '/dc/connections', { query: 'user_id=u', body: connection() });
add('connection.valid.credentials', 'POST', '/dc/connections', {
  query: 'user_id=u',
  body: connection({ credentials: { access_token: 't', expires_at: '2031-01-01T00:00:00Z' } }),
});
add('connection.empty', 'POST', '/dc/connections', { query: 'user_id=u', body: {} });
for (const [name, value] of Object.entries({
  unknown: 'dropbox',
  int: 1,
  null: null,
  upper: 'GoogleDrive',
})) {
  add(`connection.kind.${name}`, 'POST', '/dc/connections', {
    query: 'user_id=u',
    body: connection({ kind: value }),
  });
}
for (const [name, value] of Object.entries({ empty: '', long: 'n'.repeat(201), null: null })) {
  add(`connection.name.${name}`, 'POST', '/dc/connections', {
    query: 'user_id=u',
    body: connection({ name: value }),
  });
}
for (const [name, value] of Object.entries({
  list: [],
  string: 'token',
  empty: {},
  'token-empty': { access_token: '' },
  'refresh-int': { access_token: 't', refresh_token: 1 },
  'expires-word': { access_token: 't', expires_at: 'later' },
})) {
  add(`connection.credentials.${name}`, 'POST', '/dc/connections', {
    query: 'user_id=u',
    body: connection({ credentials: value }),
  });
}
add('connection.user_id.empty', 'POST', '/dc/connections', { query: 'user_id=', body: connection() });
add('connection.user_id.long', 'POST', '/dc/connections', {
  query: `user_id=${'u'.repeat(257)}`,
  body: connection(),
});
add('connection.user_id.nul', 'POST', '/dc/connections', { query: 'user_id=%00', body: connection() });
add('connection.get.id.word', 'GET', '/dc/connections/nope');

// ---- sources ---------------------------------------------------------------------------------------------------------
const source = (patch = {}) => ({
  connection_id: ID,
  store: 'draganddrop',
  config: {},
  scope: 'private',
  ...patch,
});
add('source.valid', 'POST', '/dc/sources', { query: 'user_id=u', body: source() });
add('source.empty', 'POST', '/dc/sources', { query: 'user_id=u', body: {} });
for (const [name, value] of Object.entries({ unknown: 'ftp', null: null, int: 2 })) {
  add(`source.store.${name}`, 'POST', '/dc/sources', { query: 'user_id=u', body: source({ store: value }) });
  add(`source.scope.${name}`, 'POST', '/dc/sources', { query: 'user_id=u', body: source({ scope: value }) });
}
for (const [name, value] of Object.entries({ list: [], string: 'x', null: null, nul: { a: 'b\u0000' } })) {
  add(`source.config.${name}`, 'POST', '/dc/sources', {
    query: 'user_id=u',
    body: source({ config: value }),
  });
}
for (const [name, value] of Object.entries({ empty: '', int: 1, null: null })) {
  add(`source.connection_id.${name}`, 'POST', '/dc/sources', {
    query: 'user_id=u',
    body: source({ connection_id: value }),
  });
}
add('source.name.long', 'POST', '/dc/sources', {
  query: 'user_id=u',
  body: source({ name: 'n'.repeat(201) }),
});
add('source.name.null', 'POST', '/dc/sources', { query: 'user_id=u', body: source({ name: null }) });
add('source.update.valid', 'PUT', '/dc/sources/src_1', { query: 'user_id=u', body: { name: 'n' } });
add('source.update.name.null', 'PUT', '/dc/sources/src_1', { query: 'user_id=u', body: { name: null } });
add('source.update.config.list', 'PUT', '/dc/sources/src_1', { query: 'user_id=u', body: { config: [] } });
add('source.update.config.null', 'PUT', '/dc/sources/src_1', { query: 'user_id=u', body: { config: null } });
add('source.update.pid.long', 'PUT', `/dc/sources/${'p'.repeat(65)}`, { query: 'user_id=u', body: {} });
add('source.documents.valid', 'POST', '/dc/sources/src_1/documents', {
  query: 'user_id=u',
  body: { file_ids: [FILE] },
});
for (const [name, value] of Object.entries({
  empty: [],
  missing: undefined,
  string: FILE,
  duplicate: [FILE, FILE],
  items: [FILE, 1, null],
  many: Array.from({ length: 101 }, (_, i) => `f${i}`),
})) {
  add(`source.documents.file_ids.${name}`, 'POST', '/dc/sources/src_1/documents', {
    query: 'user_id=u',
    body: { file_ids: value },
  });
}

// ---- query templates -------------------------------------------------------------------------------------------------
const template = (patch = {}) => ({ name: 'greet', content: 'Hello', ...patch });
const TEMPLATES = '/agent_execution/query_templates';
add('template.valid', 'POST', TEMPLATES, { query: 'user_id=u', body: template() });
add('template.valid.full', 'POST', TEMPLATES, {
  query: 'user_id=u',
  body: template({
    description: 'd',
    metadata: { a: [1] },
    icon_uri: 'i',
    icon_color: 'c',
    background_color: 'b',
    scope: 'organization',
  }),
});
add('template.empty', 'POST', TEMPLATES, { query: 'user_id=u', body: {} });
for (const field of ['name', 'content', 'description', 'icon_uri', 'icon_color', 'background_color']) {
  add(`template.${field}.null`, 'POST', TEMPLATES, { query: 'user_id=u', body: template({ [field]: null }) });
  add(`template.${field}.int`, 'POST', TEMPLATES, { query: 'user_id=u', body: template({ [field]: 1 }) });
}
for (const [field, max] of Object.entries({
  name: 200,
  content: 30000,
  description: 2000,
  icon_uri: 2048,
  icon_color: 64,
  background_color: 64,
})) {
  add(`template.${field}.long`, 'POST', TEMPLATES, {
    query: 'user_id=u',
    body: template({ [field]: 'x'.repeat(max + 1) }),
  });
}
add('template.name.empty', 'POST', TEMPLATES, { query: 'user_id=u', body: template({ name: '' }) });
for (const [name, value] of Object.entries({ unknown: 'public', null: null, int: 1, upper: 'PRIVATE' })) {
  add(`template.scope.${name}`, 'POST', TEMPLATES, { query: 'user_id=u', body: template({ scope: value }) });
}
for (const [name, value] of Object.entries({ list: [], string: 's', null: null, nul: { k: ['\u0000'] } })) {
  add(`template.metadata.${name}`, 'POST', TEMPLATES, {
    query: 'user_id=u',
    body: template({ metadata: value }),
  });
}
add('template.update.valid', 'PUT', `${TEMPLATES}/${ID}`, { query: 'user_id=u', body: { name: 'n' } });
add('template.update.scope.null', 'PUT', `${TEMPLATES}/${ID}`, { query: 'user_id=u', body: { scope: null } });
add('template.update.name.null', 'PUT', `${TEMPLATES}/${ID}`, { query: 'user_id=u', body: { name: null } });
add('template.update.metadata.null', 'PUT', `${TEMPLATES}/${ID}`, {
  query: 'user_id=u',
  body: { metadata: null },
});
add('template.update.id.word', 'PUT', `${TEMPLATES}/nope`, { query: 'user_id=u', body: {} });
add('template.list.valid', 'GET', TEMPLATES, { query: 'user_id=u&limit=10&offset=0' });
add('template.list.limit.zero', 'GET', TEMPLATES, { query: 'user_id=u&limit=0' });
add('template.list.limit.word', 'GET', TEMPLATES, { query: 'user_id=u&limit=ten' });
add('template.list.offset.negative', 'GET', TEMPLATES, { query: 'user_id=u&offset=-1' });
add('template.list.user_id.empty', 'GET', TEMPLATES, { query: 'user_id=' });

// ---- skills ----------------------------------------------------------------------------------------------------------
add('skill.update.valid', 'PUT', '/skills/sk_1', { query: 'user_id=u', body: { active: 'no' } });
add('skill.update.valid.nulls', 'PUT', '/skills/sk_1', {
  query: 'user_id=u',
  body: { display_name: null, active: null, scope: null },
});
for (const [name, value] of Object.entries({ word: 'sometimes', two: 2, list: [] })) {
  add(`skill.update.active.${name}`, 'PUT', '/skills/sk_1', { query: 'user_id=u', body: { active: value } });
}
for (const [name, value] of Object.entries({ unknown: 'team', int: 0 })) {
  add(`skill.update.scope.${name}`, 'PUT', '/skills/sk_1', { query: 'user_id=u', body: { scope: value } });
}
add('skill.update.display_name.empty', 'PUT', '/skills/sk_1', {
  query: 'user_id=u',
  body: { display_name: '' },
});
add('skill.update.pid.long', 'PUT', `/skills/${'s'.repeat(101)}`, { query: 'user_id=u', body: {} });

// ---- webhooks (CONTRACTS §14) -------------------------------------------------------------------------------------------
// A public address literal: the URL check resolves no name.
const webhook = (patch = {}) => ({
  url: 'https://93.184.216.34/hook',
  events: ['message.completed'],
  ...patch,
});
add('webhook.valid', 'POST', '/webhooks', { body: webhook({ description: null, active: false }) });
add('webhook.empty', 'POST', '/webhooks', { body: {} });
for (const [name, value] of wrongBut('str')) {
  add(`webhook.url.${name}`, 'POST', '/webhooks', { body: webhook({ url: value }) });
}
// Checked by the use case (after the schema), answered as a Pydantic after-validator would.
add('webhook.url.scheme', 'POST', '/webhooks', { body: webhook({ url: 'ftp://93.184.216.34/hook' }) });
add('webhook.url.word', 'POST', '/webhooks', { body: webhook({ url: 'hook' }) });
add('webhook.url.long', 'POST', '/webhooks', {
  body: webhook({ url: `https://a.example/${'x'.repeat(2048)}` }),
});
for (const [name, value] of Object.entries({
  empty: [],
  unknown: ['message.created'],
  twice: ['message.completed', 'message.completed'],
  string: 'message.completed',
  null: null,
  int: [1],
})) {
  add(`webhook.events.${name}`, 'POST', '/webhooks', { body: webhook({ events: value }) });
}
add('webhook.description.long', 'POST', '/webhooks', { body: webhook({ description: 'd'.repeat(1001) }) });
add('webhook.description.int', 'POST', '/webhooks', { body: webhook({ description: 1 }) });
for (const [name, value] of Object.entries({ word: 'sometimes', two: 2, null: null })) {
  add(`webhook.active.${name}`, 'POST', '/webhooks', { body: webhook({ active: value }) });
}
add('webhook.update.valid', 'PUT', `/webhooks/${ID}`, { body: { active: 'yes', description: null } });
add('webhook.update.events.empty', 'PUT', `/webhooks/${ID}`, { body: { events: [] } });
add('webhook.update.url.null', 'PUT', `/webhooks/${ID}`, { body: { url: null } });
add('webhook.update.id.word', 'PUT', '/webhooks/nope', { body: {} });
add('webhook.deliveries.valid', 'GET', `/webhooks/${ID}/deliveries`, { query: 'limit=100' });
for (const [name, value] of Object.entries({ zero: '0', over: '101', word: 'ten', float: '1.5' })) {
  add(`webhook.deliveries.limit.${name}`, 'GET', `/webhooks/${ID}/deliveries`, { query: `limit=${value}` });
}

// ---- end-user tokens (CONTRACTS §17) -------------------------------------------------------------------------------------
add('eut.valid', 'POST', '/end-user-tokens', { body: { user_id: 'alice', ttl_seconds: '120' } });
add('eut.empty', 'POST', '/end-user-tokens', { body: {} });
for (const [name, value] of Object.entries({
  empty: '',
  long: 'u'.repeat(257),
  int: 7,
  null: null,
  nul: 'a\u0000',
})) {
  add(`eut.user_id.${name}`, 'POST', '/end-user-tokens', { body: { user_id: value } });
}
for (const [name, value] of Object.entries({ low: 59, high: 86401, float: 60.5, word: 'hour', null: null })) {
  add(`eut.ttl_seconds.${name}`, 'POST', '/end-user-tokens', { body: { user_id: 'a', ttl_seconds: value } });
}
for (const [name, value] of Object.entries({
  word: ['agent-1'],
  string: ID,
  eleven: Array.from({ length: 11 }, () => ID),
  null: null,
})) {
  add(`eut.agent_ids.${name}`, 'POST', '/end-user-tokens', { body: { user_id: 'a', agent_ids: value } });
}

// ---- routines (CONTRACTS §13) ---------------------------------------------------------------------------------------------
const routine = (patch = {}) => ({
  name: 'daily',
  agent_id: AGENT,
  user_id: 'alice',
  schedule: '0 9 * * 1-5',
  message: { content: 'Summarize' },
  ...patch,
});
add('routine.valid', 'POST', '/routines', {
  body: routine({
    timezone: 'Europe/Paris',
    options: { max_steps: 3, memory_namespace: null },
    active: 'on',
  }),
});
add('routine.empty', 'POST', '/routines', { body: {} });
for (const field of ['name', 'agent_id', 'user_id', 'schedule', 'timezone']) {
  add(`routine.${field}.null`, 'POST', '/routines', { body: routine({ [field]: null }) });
  add(`routine.${field}.int`, 'POST', '/routines', { body: routine({ [field]: 1 }) });
}
for (const [field, max] of Object.entries({ name: 200, schedule: 200, timezone: 64 })) {
  add(`routine.${field}.long`, 'POST', '/routines', { body: routine({ [field]: 'x'.repeat(max + 1) }) });
}
add('routine.name.empty', 'POST', '/routines', { body: routine({ name: '' }) });
// Checked by the use case (after the schema), answered as a Pydantic after-validator would.
add('routine.schedule.fields', 'POST', '/routines', { body: routine({ schedule: '0 9 * *' }) });
add('routine.timezone.unknown', 'POST', '/routines', { body: routine({ timezone: 'Mars/Olympus_Mons' }) });
add('routine.timing.both', 'POST', '/routines', {
  body: routine({ schedule: '* * * * * * *', timezone: 'Nowhere' }),
});
add('routine.message.string', 'POST', '/routines', { body: routine({ message: 'hi' }) });
add('routine.message.content.long', 'POST', '/routines', {
  body: routine({ message: { content: 'x'.repeat(30001) } }),
});
add('routine.options.list', 'POST', '/routines', { body: routine({ options: [] }) });
add('routine.options.max_steps.zero', 'POST', '/routines', { body: routine({ options: { max_steps: 0 } }) });
add('routine.options.memory_namespace.long', 'POST', '/routines', {
  body: routine({ options: { memory_namespace: 'n'.repeat(129) } }),
});
add('routine.active.word', 'POST', '/routines', { body: routine({ active: 'sometimes' }) });
add('routine.update.valid', 'PUT', `/routines/${ID}`, { query: 'user_id=alice', body: { active: false } });
add('routine.update.user_id.missing', 'PUT', `/routines/${ID}`, { body: { active: false } });
add('routine.update.name.null', 'PUT', `/routines/${ID}`, { query: 'user_id=alice', body: { name: null } });
add('routine.update.id.word', 'PUT', '/routines/nope', { query: 'user_id=alice', body: {} });
add('routine.list.valid', 'GET', '/routines', { query: 'user_id=alice' });
add('routine.list.user_id.missing', 'GET', '/routines');
add('routine.run.id.word', 'POST', '/routines/nope/run', { query: 'user_id=alice' });

// ---- agents (CONTRACTS §15) ---------------------------------------------------------------------------------------------
const agent = (patch = {}) => ({ name: 'helper', ...patch });
add('agent.valid', 'POST', '/agents', {
  body: agent({
    instructions: 'Be brief.',
    model: 'openai:gpt-4o-mini',
    memory_namespace: null,
    token_budget: 1000,
    tools: ['clock', 'mcp:github'],
    compaction: { threshold_tokens: 0 },
    temperature: 1,
    max_output_tokens: '256',
  }),
});
add('agent.empty', 'POST', '/agents', { body: {} });
for (const [name, value] of wrongBut('str'))
  add(`agent.name.${name}`, 'POST', '/agents', { body: agent({ name: value }) });
add('agent.name.empty', 'POST', '/agents', { body: agent({ name: '' }) });
add('agent.name.long', 'POST', '/agents', { body: agent({ name: 'n'.repeat(201) }) });
add('agent.instructions.long', 'POST', '/agents', { body: agent({ instructions: 'i'.repeat(30001) }) });
for (const [name, value] of Object.entries({ unknown: 'gpt-4o', empty: 'openai:', int: 1, null: null })) {
  add(`agent.model.${name}`, 'POST', '/agents', { body: agent({ model: value }) });
}
add('agent.memory_namespace.empty', 'POST', '/agents', { body: agent({ memory_namespace: '' }) });
add('agent.token_budget.negative', 'POST', '/agents', { body: agent({ token_budget: -1 }) });
add('agent.token_budget.float', 'POST', '/agents', { body: agent({ token_budget: 1.5 }) });
for (const [name, value] of Object.entries({
  unknown: ['clock', 'shell'],
  string: 'clock',
  int: [1],
  many: Array.from({ length: 51 }, () => 'clock'),
})) {
  add(`agent.tools.${name}`, 'POST', '/agents', { body: agent({ tools: value }) });
}
for (const [name, value] of Object.entries({
  object: { name: 'gh' },
  command: [{ name: 'gh', command: 'npx', args: ['server'] }],
  name: [{ name: 'git hub', url: 'https://93.184.216.34/mcp' }],
  env: [{ name: 'gh', server: 'gh', env: [] }],
  many: Array.from({ length: 21 }, (_, i) => ({ name: `s${i}`, server: 'gh' })),
})) {
  add(`agent.mcp.${name}`, 'POST', '/agents', { body: agent({ mcp: value }) });
}
for (const [name, value] of Object.entries({
  missing: {},
  negative: { threshold_tokens: -1 },
  keep: { threshold_tokens: 10, keep_recent_messages: 0 },
  list: [],
})) {
  add(`agent.compaction.${name}`, 'POST', '/agents', { body: agent({ compaction: value }) });
}
for (const [name, value] of Object.entries({ high: 2.5, negative: -0.1, word: 'warm', null: null })) {
  add(`agent.temperature.${name}`, 'POST', '/agents', { body: agent({ temperature: value }) });
}
add('agent.max_output_tokens.zero', 'POST', '/agents', { body: agent({ max_output_tokens: 0 }) });
add('agent.update.valid', 'PUT', `/agents/${ID}`, { body: { tools: null, memory_namespace: null } });
add('agent.update.name.null', 'PUT', `/agents/${ID}`, { body: { name: null } });
add('agent.update.id.word', 'PUT', '/agents/nope', { body: {} });

// ---- the AI SDK chat protocol (CONTRACTS §17) and compaction (§19) -------------------------------------------------------
const aiChat = (patch = {}) => ({
  id: 'chat-1',
  messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
  trigger: 'submit-message',
  agent_id: AGENT,
  user_id: 'alice',
  ...patch,
});
add('ai-chat.valid', 'POST', '/ai-sdk/chat', { body: aiChat() });
add('ai-chat.empty', 'POST', '/ai-sdk/chat', { body: {} });
for (const [name, value] of Object.entries({ empty: '', long: 'c'.repeat(129), int: 1 })) {
  add(`ai-chat.id.${name}`, 'POST', '/ai-sdk/chat', { body: aiChat({ id: value }) });
}
for (const [name, value] of Object.entries({ empty: [], object: {}, strings: ['hi'] })) {
  add(`ai-chat.messages.${name}`, 'POST', '/ai-sdk/chat', { body: aiChat({ messages: value }) });
}
for (const [name, value] of Object.entries({ unknown: 'resume-stream', null: null })) {
  add(`ai-chat.trigger.${name}`, 'POST', '/ai-sdk/chat', { body: aiChat({ trigger: value }) });
}
add('ai-chat.file_ids.many', 'POST', '/ai-sdk/chat', {
  body: aiChat({ file_ids: ['a', 'b', 'c', 'd', 'e', 'f'] }),
});
add('compact.thread_id.word', 'POST', '/chat/nope/compact');
add('compact.valid', 'POST', `/chat/${THREAD}/compact`, { query: 'user_id=alice' });

// ---- where the service answers beyond the schema (see exceptions.json) -----------------------------------------
add('json.deep-10000', 'POST', '/chat', { raw: `{"message": ${'['.repeat(10000)}${']'.repeat(10000)}}` });
add('json.deep-300', 'POST', TEMPLATES, {
  query: 'user_id=u',
  raw: `{"name": "n", "content": "c", "metadata": ${'{"a": '.repeat(300)}1${'}'.repeat(300)}}`,
});
add('chat.message.file_ids.unknown', 'POST', '/chat', { body: start({ message: { file_ids: [FILE] } }) });
add('memory.read.namespace.missing', 'GET', '/memory/file', { query: 'path=a' });
add('connection.user_id.missing', 'POST', '/dc/connections', { body: connection() });

module.exports = cases;

if (require.main === module) process.stdout.write(JSON.stringify(cases));
