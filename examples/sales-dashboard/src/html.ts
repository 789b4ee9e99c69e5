/** Markup that is already safe: the result of `html`, never built from unescaped input. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Interpolation =
  SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char] ?? char);
}

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false || value === true) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return (value as readonly Interpolation[]).map(render).join('');
  return escapeHtml(String(value));
}

/**
 * A template tag that escapes every interpolated value (names, venues, gates all come from people)
 * unless it is itself `html`. Arrays are joined; null, undefined and booleans render nothing, so
 * `${cond && html`…`}` works.
 */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}
