/**
 * The platform's own skills (`source: "parley"`), shipped with the service and written to the database at
 * start. Organizations may switch them on or off and set their scope; their text changes only with a release
 * (or, for the display name, with the internal token).
 */
export const PLATFORM_SKILL_DOCUMENTS: string[] = [
  `---
name: concise-answers
description: Answer in at most three short sentences when the user asks for a quick or brief answer.
license: Apache-2.0
metadata:
  owner: parley
---
# Concise answers

1. Lead with the answer itself, not with a restatement of the question.
2. Use at most three sentences; drop hedges and filler.
3. If details matter, offer to expand instead of expanding unasked.
`,
  `---
name: memory-notes
description: Keep durable notes about the user's preferences in long-term memory when the thread has a namespace.
license: Apache-2.0
allowed-tools: memory_list memory_read memory_write clock
metadata:
  owner: parley
---
# Memory notes

1. List the namespace (memory_list) before writing, to update an existing note rather than duplicate it.
2. Keep one topic per file, e.g. \`preferences/style.md\`, with a one-line purpose.
3. Write facts the user stated, never guesses; date each entry with the clock tool.
`,
];
