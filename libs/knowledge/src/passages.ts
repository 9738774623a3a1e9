/** A piece of a document's text and where it is in it. */
interface Passage {
  position: number;
  startOffset: number;
  endOffset: number;
  text: string;
}

const PASSAGE_TARGET_CHARS = 1000;

/**
 * Splits text into passages of at most `target` characters, cut at a paragraph end, else a sentence end,
 * else a space, in the last 40% of the window; offsets are of the original text, blank passages dropped.
 */
export function splitPassages(text: string, target = PASSAGE_TARGET_CHARS): Passage[] {
  const passages: Passage[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + target);
    if (end < text.length) {
      const window = text.slice(start, end);
      const floor = Math.floor(target * 0.6);
      const cut = [lastParagraphEnd(window), lastSentenceEnd(window), lastSpace(window)].find(
        (index) => index >= floor,
      );
      if (cut !== undefined) end = start + cut;
    }
    const raw = text.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    const trimmed = raw.trim();
    if (trimmed) {
      passages.push({
        position: passages.length,
        startOffset: start + lead,
        endOffset: start + lead + trimmed.length,
        text: trimmed,
      });
    }
    start = end;
  }
  return passages;
}

/** Index just after the last blank line of the window, or -1. */
function lastParagraphEnd(window: string): number {
  const index = window.lastIndexOf('\n\n');
  return index < 0 ? -1 : index + 2;
}

/** Index just after the last `.`, `!` or `?` followed by white space, or -1. */
function lastSentenceEnd(window: string): number {
  for (let index = window.length - 2; index >= 0; index--) {
    if ('.!?'.includes(window[index]) && /\s/.test(window[index + 1])) return index + 2;
  }
  return -1;
}

function lastSpace(window: string): number {
  for (let index = window.length - 1; index >= 0; index--) if (/\s/.test(window[index])) return index + 1;
  return -1;
}
