// PostgreSQL LISTEN/NOTIFY between processes: a request that waits for work another process
// commits (a refund booked by a worker) hears of it the moment that transaction commits, instead
// of when Temporal has closed the workflow and answered the client's long poll (about 10 ms later
// on the dev server, half of what a refund adds to an empty workflow). NOTIFY is transactional: it
// is sent at commit, never for a rolled-back change. One connection per process, opened on first
// use; a notice that cannot arrive (the connection lost, a pooler in transaction mode that does not
// keep LISTEN) only means the waiter's other way of learning the outcome answers instead.
import pg from 'pg';

import { logger } from '../logger.js';

const log = logger.child({ component: 'notifications' });

/** The listening connection's application_name. */
export const LISTENER_NAME = 'commerce-api listen';

export interface Subscription {
  /**
   * Resolves on the next notice since the last call (a notice that came in between counts); one
   * call at a time. Rejects once closed, or when `signal` aborts (a notice after that is kept for
   * the next call, not lost with this one).
   */
  next(signal?: AbortSignal): Promise<void>;
  /** Stops listening for this payload; a pending next() rejects. */
  close(): void;
}

export interface Notifications {
  /**
   * Listens for `payload` on `channel`: once this resolves, every NOTIFY committed later reaches
   * the subscription. Never rejects: without a connection the subscription simply hears nothing.
   */
  subscribe(channel: string, payload: string): Promise<Subscription>;
  /** Closes the connection; later subscriptions hear nothing. */
  close(): Promise<void>;
}

/** A channel name: a lower-case SQL identifier, so that LISTEN and pg_notify name the same channel. */
export const CHANNEL_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

interface Listener {
  client: pg.Client;
  channels: Map<string, Promise<void>>;
}

class Waiter implements Subscription {
  private notices = 0;
  private wake: { resolve: () => void; reject: (error: Error) => void } | undefined;
  private closed = false;

  constructor(private readonly onClose: (waiter: Waiter) => void) {}

  notice(): void {
    if (this.wake) {
      this.wake.resolve();
      this.wake = undefined;
    } else this.notices += 1;
  }

  next(signal?: AbortSignal): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the subscription is closed'));
    if (this.wake) return Promise.reject(new Error('next() is already waiting'));
    if (this.notices > 0) {
      this.notices -= 1;
      return Promise.resolve();
    }
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const abandon = () => {
        if (this.wake === wake) this.wake = undefined;
        reject(signal!.reason);
      };
      const wake = {
        resolve: () => {
          signal?.removeEventListener('abort', abandon);
          resolve();
        },
        reject,
      };
      signal?.addEventListener('abort', abandon, { once: true });
      this.wake = wake;
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wake?.reject(new Error('the subscription is closed'));
    this.wake = undefined;
    this.onClose(this);
  }
}

export function createNotifications(connectionString: string): Notifications {
  let listener: Promise<Listener | undefined> | undefined;
  let stopped = false;
  const waiters = new Map<string, Set<Waiter>>();
  const keyOf = (channel: string, payload: string) => `${channel}\u0000${payload}`;

  async function open(forget: () => void): Promise<Listener | undefined> {
    // Named, so that operators see it in pg_stat_activity for what it is.
    const client = new pg.Client({ connectionString, application_name: LISTENER_NAME });
    let gone = false;
    // Lost: the next subscription connects again; the waiters of this one learn the outcome the other way.
    const lost = (reason: unknown) => {
      if (gone) return;
      gone = true;
      forget();
      if (!stopped) log.warn({ err: reason }, 'the LISTEN connection failed or was lost; connecting again on the next subscription');
    };
    client.on('error', lost);
    client.on('end', () => lost(new Error('connection ended')));
    client.on('notification', ({ channel, payload }) => {
      for (const waiter of waiters.get(keyOf(channel, payload ?? '')) ?? []) waiter.notice();
    });
    try {
      await client.connect();
    } catch (error) {
      lost(error);
      return undefined;
    }
    return { client, channels: new Map() };
  }

  function connect(): Promise<Listener | undefined> {
    if (listener) return listener;
    const attempt: Promise<Listener | undefined> = open(() => {
      if (listener === attempt) listener = undefined;
    });
    listener = attempt;
    return attempt;
  }

  async function listening(channel: string): Promise<boolean> {
    const connected = stopped ? undefined : await connect();
    if (!connected) return false;
    let listened = connected.channels.get(channel);
    if (!listened) {
      listened = connected.client.query(`LISTEN ${connected.client.escapeIdentifier(channel)}`).then(() => undefined);
      connected.channels.set(channel, listened);
    }
    try {
      await listened;
      return true;
    } catch (error) {
      connected.channels.delete(channel);
      log.warn({ err: error, channel }, 'LISTEN failed');
      return false;
    }
  }

  return {
    async subscribe(channel, payload) {
      if (!CHANNEL_PATTERN.test(channel)) throw new Error(`not a channel name: ${channel}`);
      const key = keyOf(channel, payload);
      const waiter = new Waiter((closed) => {
        const set = waiters.get(key);
        set?.delete(closed);
        if (set?.size === 0) waiters.delete(key);
      });
      // Registered before LISTEN completes: a notice is never missed once subscribe has resolved.
      if (!waiters.has(key)) waiters.set(key, new Set());
      waiters.get(key)!.add(waiter);
      await listening(channel);
      return waiter;
    },
    async close() {
      stopped = true;
      const connected = await listener;
      listener = undefined;
      await connected?.client.end().catch(() => undefined);
    },
  };
}
