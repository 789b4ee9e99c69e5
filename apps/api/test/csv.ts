import { expect } from 'vitest';

/**
 * RFC 4180 records: quoted cells may hold commas, doubled quotes and line breaks; every record
 * ends with CRLF.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      record.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      record.push(cell);
      records.push(record);
      record = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  expect(cell, 'the file ends with CRLF').toBe('');
  return records;
}

/** The records after the header, each as its cells by column name. */
export function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  expect(header).toBeDefined();
  return rows.map((row) => {
    expect(row).toHaveLength(header!.length);
    return Object.fromEntries(header!.map((column, i) => [column, row[i]!]));
  });
}
