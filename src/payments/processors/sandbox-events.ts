import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Prisma, PrismaClient, SandboxCharge } from '../../generated/prisma/client.js';
import { InvalidProcessorSignature, type ProcessorEvent, type ProcessorEventBase } from './processor.js';
import { SANDBOX_SIGNATURE_HEADER, signSandboxPayload, verifySandboxSignature } from './sandbox-signature.js';

// The sandbox's webhooks: every state change writes its normalized event to the SandboxEvent
// outbox in the change's transaction, and a delivery is that event as JSON, signed with the
// sandbox account's secret. The secret lives in the database (one per database, created on
// first use), so every process signs and verifies with the same one and nothing guessable is built in.

/** A webhook as a processor would POST it: feed rawBody and headers to parseWebhook. */
export interface SignedWebhook {
  eventId: string;
  rawBody: string;
  headers: Record<string, string>;
}

/** The type-specific part of an event; recordEvent adds the common fields. */
export type EventFields = ProcessorEvent extends infer E ? (E extends unknown ? Omit<E, keyof ProcessorEventBase> : never) : never;

const EVENT_TYPES: ReadonlySet<string> = new Set<ProcessorEvent['type']>([
  'charge.succeeded',
  'charge.pending',
  'charge.failed',
  'charge.cancelled',
  'charge.refunded',
  'refund.failed',
  'charge.disputed',
  'dispute.closed',
]);

/** Processor-style ids (ch_sbx_…), so logs tell at once whose id it is. */
export function sandboxId(prefix: 'ch' | 're' | 'pm' | 'dp' | 'evt'): string {
  return `${prefix}_sbx_${randomBytes(12).toString('hex')}`;
}

/** A new event about the charge (not yet recorded). */
export function sandboxEvent(charge: Pick<SandboxCharge, 'id' | 'paymentId' | 'livemode'>, fields: EventFields, now: Date): ProcessorEvent {
  const base: ProcessorEventBase = {
    id: sandboxId('evt'),
    processor: 'sandbox',
    chargeId: charge.id,
    paymentId: charge.paymentId,
    livemode: charge.livemode,
    createdAt: now.getTime(),
  };
  return { ...base, ...fields } as ProcessorEvent;
}

export async function recordEvent(tx: Prisma.TransactionClient, charge: SandboxCharge, fields: EventFields, now: Date): Promise<ProcessorEvent> {
  const event = sandboxEvent(charge, fields, now);
  await tx.sandboxEvent.create({
    data: { id: event.id, chargeId: charge.id, type: event.type, payload: event as unknown as Prisma.InputJsonValue, createdAt: now },
  });
  return event;
}

/** Between a charge's id and the rest of its client secret, as in Stripe's. */
export const CLIENT_SECRET_SEPARATOR = '_secret_';

const clientSecretOf = (accountSecret: string, chargeId: string) =>
  `${chargeId}${CLIENT_SECRET_SEPARATOR}${createHmac('sha256', accountSecret).update(`client-secret/${chargeId}`).digest('base64url').slice(0, 32)}`;

export class SandboxWebhooks {
  private secretPromise: Promise<string> | undefined;

  constructor(
    private readonly prisma: PrismaClient,
    private readonly now: () => Date,
  ) {}

  /** The account's secret, created by whichever process asks first (the row is immutable, so caching it is safe). */
  private secret(): Promise<string> {
    this.secretPromise ??= (async () => {
      const candidate = `whsec_sbx_${randomBytes(32).toString('base64url')}`;
      await this.prisma.$executeRaw`INSERT INTO "SandboxAccount" (id, "webhookSecret") VALUES (1, ${candidate}) ON CONFLICT (id) DO NOTHING`;
      const account = await this.prisma.sandboxAccount.findUniqueOrThrow({ where: { id: 1 } });
      return account.webhookSecret;
    })().catch((error: unknown) => {
      this.secretPromise = undefined;
      throw error;
    });
    return this.secretPromise;
  }

  /** A charge's client secret (NextAction): derived from the account's secret, so nothing more is stored. */
  async clientSecret(chargeId: string): Promise<string> {
    return clientSecretOf(await this.secret(), chargeId);
  }

  /**
   * The charge (or setup) a client secret names, when the secret is genuine; null otherwise. Reads
   * only: a made-up secret sent before any was minted creates no account row.
   */
  async chargeOfClientSecret(clientSecret: string): Promise<string | null> {
    const chargeId = clientSecret.split(CLIENT_SECRET_SEPARATOR)[0]!;
    const secret = this.secretPromise ? await this.secretPromise : (await this.prisma.sandboxAccount.findUnique({ where: { id: 1 } }))?.webhookSecret;
    if (!secret) return null;
    const expected = Buffer.from(clientSecretOf(secret, chargeId));
    const given = Buffer.from(clientSecret);
    return expected.length === given.length && timingSafeEqual(expected, given) ? chargeId : null;
  }

  async sign(event: ProcessorEvent): Promise<SignedWebhook> {
    const rawBody = JSON.stringify(event);
    const signature = signSandboxPayload(await this.secret(), rawBody, this.now());
    return { eventId: event.id, rawBody, headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: signature } };
  }

  async verify(rawBody: string, signatureHeader: string | undefined): Promise<ProcessorEvent> {
    verifySandboxSignature(await this.secret(), rawBody, signatureHeader, this.now());
    let event: ProcessorEvent;
    try {
      event = JSON.parse(rawBody) as ProcessorEvent;
    } catch {
      throw new InvalidProcessorSignature('Signed payload is not JSON');
    }
    // Signed by us, so well-formed unless the secret leaked: refuse anything else all the same.
    if (event?.processor !== 'sandbox' || !EVENT_TYPES.has(event.type) || typeof event.chargeId !== 'string') {
      throw new InvalidProcessorSignature('Signed payload is not a sandbox event');
    }
    return event;
  }

  /** Events not yet acknowledged, oldest first, signed now: the deliveries a poller hands to the webhook handler. */
  async pending(limit = 100): Promise<SignedWebhook[]> {
    const rows = await this.prisma.sandboxEvent.findMany({ where: { acknowledgedAt: null }, orderBy: { sequence: 'asc' }, take: limit });
    return Promise.all(rows.map((row) => this.sign(row.payload as unknown as ProcessorEvent)));
  }

  /** After the handler took it: the outbox stops offering it. */
  async acknowledge(eventId: string): Promise<void> {
    await this.prisma.sandboxEvent.updateMany({ where: { id: eventId, acknowledgedAt: null }, data: { acknowledgedAt: this.now() } });
  }
}
