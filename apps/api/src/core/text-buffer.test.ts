import { describe, expect, it } from 'vitest';
import { TextBuffer } from './text-buffer';

describe('TextBuffer', () => {
  it('keeps every text written, in UTF-8, growing past its first size, and starts over when cleared', () => {
    const text = new TextBuffer(4);
    const parts = ['[', 'café', '€'.repeat(100), '😀', ']'];
    for (const part of parts) text.write(part);
    expect(text.bytes.toString('utf8')).toBe(parts.join(''));
    expect(text.length).toBe(Buffer.byteLength(parts.join('')));
    text.clear();
    text.write('again');
    expect(text.bytes.toString('utf8')).toBe('again');
  });
});
