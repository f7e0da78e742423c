/**
 * Reading a server's retry hint (HTTP 429/503 responses), for model plugins that talk HTTP: `retry-after-ms` (OpenAI,
 * Azure) and `retry-after` (RFC 9110 §10.2.3). A model plugin puts the result on `ModelCallError.retryAfterMs`; the
 * host's retry policy caps it.
 */

/** Response headers as the fetch API's `Headers` or a plain record (names matched case-insensitively). */
export type HeaderSource = Headers | Record<string, string | null | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | null | undefined>;
  for (const [k, v] of Object.entries(record)) if (k.toLowerCase() === name && v !== null && v !== undefined) return v;
  return undefined;
}

const NUMBER = /^\s*\d+(?:\.\d+)?\s*$/;

/**
 * The server's retry hint in milliseconds, or undefined when there is none or it is unusable.
 * - `retry-after-ms` (OpenAI, Azure): milliseconds, a non-negative decimal (e.g. `1500`, `12.5`) — wins when valid;
 * - `retry-after` (RFC 9110 §10.2.3): seconds as a non-negative decimal (`2`, `0.5`), or an HTTP date, taken relative to
 *   `now` (a date already past gives 0: retry at once).
 * Junk, negative numbers and unparsable dates give undefined (an invalid `retry-after-ms` falls back to `retry-after`).
 * @param now current time in epoch milliseconds (for HTTP dates; default `Date.now()`).
 */
export function parseRetryAfter(headers: HeaderSource | undefined | null, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && NUMBER.test(ms)) {
    const v = Number.parseFloat(ms);
    if (Number.isFinite(v)) return v;
  }
  const ra = header(headers, 'retry-after');
  if (ra === undefined || ra.trim() === '') return undefined;
  if (NUMBER.test(ra)) {
    const v = Number.parseFloat(ra) * 1000;
    return Number.isFinite(v) ? v : undefined;
  }
  const at = parseHttpDate(ra);
  return at === undefined ? undefined : Math.max(0, at - now);
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
// RFC 9110 §5.6.7: IMF-fixdate, the obsolete RFC 850 form, and asctime (always GMT)
const IMF = new RegExp(`^${DAY},\\s+\\d{1,2}\\s+${MONTH}\\s+\\d{4}\\s+${TIME}\\s+GMT$`);
const RFC850 = new RegExp(`^${DAY},\\s+\\d{1,2}-${MONTH}-\\d{2}\\s+${TIME}\\s+GMT$`);
const ASCTIME = new RegExp(`^${DAY}\\s+${MONTH}\\s+\\d{1,2}\\s+${TIME}\\s+\\d{4}$`);

/** Epoch ms of an HTTP date (RFC 9110 §5.6.7), or undefined; stricter than `Date.parse`, which accepts almost anything. */
function parseHttpDate(text: string): number | undefined {
  const s = text.trim();
  let at: number;
  if (IMF.test(s) || RFC850.test(s)) at = Date.parse(s);
  else if (ASCTIME.test(s)) at = Date.parse(`${s} GMT`);
  else return undefined;
  return Number.isNaN(at) ? undefined : at;
}
