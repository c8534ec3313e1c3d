// Retries with exponential backoff and jitter. A 429 was refused before any work, so every request
// is retried; a 5xx or a lost connection only when repeating it cannot do the work twice: a read,
// or a write carrying an Idempotency-Key (the same key on every try, so the server answers the
// first result). Retry-After is honoured when the server sends it.

export interface RetryOptions {
  /** Tries after the first; 0 turns retries off. Default 3. */
  maxRetries?: number;
  /** The first backoff in milliseconds, doubled on each try (with full jitter). Default 500. */
  initialDelayMs?: number;
  /** The longest wait between two tries, Retry-After included; a longer Retry-After ends the retries. Default 30 000. */
  maxDelayMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds a Retry-After header asks for (seconds or an HTTP date), or null. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === '') return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

/** A read, or a write that carries an Idempotency-Key header. */
const safeToRepeat = (request: Request) => request.method === 'GET' || request.method === 'HEAD' || request.headers.has('idempotency-key');

/** A fetch that retries `base` as described above; `keyedInBody` names the writes whose idempotency key is in their body. */
export function retryingFetch(
  base: (request: Request) => Promise<Response>,
  options: RetryOptions = {},
  keyedInBody: (request: Request) => boolean = () => false,
): (request: Request) => Promise<Response> {
  const repeatable = (request: Request) => safeToRepeat(request) || keyedInBody(request);
  const { maxRetries = 3, initialDelayMs = 500, maxDelayMs = 30_000 } = options;
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      // The original stays unread for the next try.
      const sent = request.clone();
      let response: Response | undefined;
      try {
        response = await base(sent);
      } catch (error) {
        if (attempt >= maxRetries || !repeatable(request) || request.signal.aborted) throw error;
      }
      if (response) {
        const retryable = response.status === 429 || (response.status >= 500 && repeatable(request));
        if (!retryable || attempt >= maxRetries) return response;
      }
      const asked = response ? retryAfterMs(response.headers.get('retry-after')) : null;
      if (asked !== null && asked > maxDelayMs) return response!;
      const backoff = Math.random() * Math.min(maxDelayMs, initialDelayMs * 2 ** attempt);
      await response?.body?.cancel();
      await sleep(asked ?? backoff);
    }
  };
}
