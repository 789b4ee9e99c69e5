const formats = new Map<string, Intl.NumberFormat>();

function currencyFormat(currency: string): Intl.NumberFormat {
  let format = formats.get(currency);
  if (!format) {
    try {
      format = new Intl.NumberFormat('en-GB', { style: 'currency', currency });
    } catch {
      // A code this runtime does not know: show the amount with the code after it.
      format = new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2 });
    }
    formats.set(currency, format);
  }
  return format;
}

/** Minor units for display (`12500`, `GBP` → `£125.00`; `JPY` has no minor unit). */
export function formatMoney(minor: number, currency: string): string {
  const format = currencyFormat(currency);
  const options = format.resolvedOptions();
  const digits = options.maximumFractionDigits ?? 2;
  const text = format.format(minor / 10 ** digits);
  return options.style === 'currency' ? text : `${text} ${currency}`;
}

const counts = new Intl.NumberFormat('en-GB');

export const formatCount = (n: number): string => counts.format(n);
