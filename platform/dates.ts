/** A date as the API writes it: `YYYY-MM-DD` of its UTC day. */
export const dayOf = (d: Date): string => d.toISOString().slice(0, 10);
