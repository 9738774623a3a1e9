import { splitPassages } from './passages';

describe('splitPassages', () => {
  it('keeps a short text whole, trimmed, with its offsets', () => {
    expect(splitPassages('  hello world \n')).toEqual([
      { position: 0, startOffset: 2, endOffset: 13, text: 'hello world' },
    ]);
  });

  it('cuts long text at paragraph and sentence ends, each passage pointing back into the text', () => {
    const paragraph = 'The quarterly report covers revenue. '.repeat(20);
    const text = `${paragraph}\n\n${paragraph}\n\n${paragraph}`;
    const passages = splitPassages(text, 500);
    expect(passages.length).toBeGreaterThan(3);
    for (const passage of passages) {
      expect(passage.text.length).toBeLessThanOrEqual(500);
      expect(text.slice(passage.startOffset, passage.endOffset)).toBe(passage.text);
      expect(passage.text.endsWith('.')).toBe(true);
    }
    expect(passages.map((p) => p.position)).toEqual(passages.map((_p, i) => i));
  });

  it('cuts text without any spaces at the window size', () => {
    const passages = splitPassages('x'.repeat(2500), 1000);
    expect(passages.map((p) => p.text.length)).toEqual([1000, 1000, 500]);
  });

  it('drops blank text', () => {
    expect(splitPassages(' \n\n ')).toEqual([]);
  });
});
