export type CsvValue = string | number | null | undefined;

/**
 * One field as RFC 4180 writes it: quoted when it holds a comma, a double quote, a line break or
 * edge whitespace (which some readers trim), with double quotes doubled. Null is an empty field.
 */
export function csvField(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]|^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF-terminated as RFC 4180 asks (every spreadsheet and CSV library reads it). */
export function csvRow(values: readonly CsvValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
