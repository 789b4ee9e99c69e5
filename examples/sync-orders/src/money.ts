const fractionDigits = new Map<string, number>();

/** Decimal places of a currency's minor unit (ISO 4217: EUR 2, JPY 0, KWD 3). */
export function minorUnitDigits(currency: string): number {
  let digits = fractionDigits.get(currency);
  if (digits === undefined) {
    try {
      digits =
        new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions()
          .maximumFractionDigits ?? 2;
    } catch {
      // Not a currency this runtime knows: cents are the common case.
      digits = 2;
    }
    fractionDigits.set(currency, digits);
  }
  return digits;
}

/**
 * Minor units as a decimal amount in major units (`7950`, `GBP` → `79.50`), by string arithmetic:
 * no floating point between the API's integers and the file.
 */
export function toMajorUnits(minor: number, currency: string): string {
  const digits = minorUnitDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const magnitude = Math.abs(minor).toString();
  if (digits === 0) return `${sign}${magnitude}`;
  const padded = magnitude.padStart(digits + 1, '0');
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}
