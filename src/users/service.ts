import { randomBytes, scrypt, type ScryptOptions } from 'node:crypto';
import { Prisma, type PrismaClient } from '../generated/prisma/client.js';
import { isUniqueViolation } from '../db/client.js';
import { NotFound, ValidationFailed } from '../core/errors.js';
import { recordEvent } from '../events/event-service.js';
import { inScope, type Scope } from '../core/scope.js';
import { archivedWhere, pageCount, pagePage } from '../core/list.js';
import { isCountry, postalCodeRequired } from '../reference/countries.js';
import { userEventData } from './events.js';
import { claimArchive } from '../core/archive.js';

export const PASSWORD_MIN_LENGTH = 8;
// The WHATWG "valid e-mail address" grammar, plus a dot in the domain: a buyer needs a routable address.
const EMAIL_PATTERN =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;
const SCRYPT = { N: 16384, r: 8, p: 1, keyLength: 64, saltBytes: 16 } as const;

// A type alias (not an interface) so it stays assignable to Prisma's JSON input.
export type BillingDetails = {
  countryCode: string;
  postalCode?: string | null;
  state?: string | null;
  city?: string | null;
  line1?: string | null;
  line2?: string | null;
  name?: string | null;
};

export interface CreateUserInput {
  email: string;
  username?: string | null;
  internalId?: string | null;
  details?: unknown;
  billingDetails?: BillingDetails | null;
  password?: string | null;
}

export interface UserListArgs {
  page?: number | null;
  limit?: number | null;
  archived?: boolean | null;
  withArchived?: boolean | null;
  email?: string | null;
}

type Query = { select?: Prisma.UserSelect; include?: Prisma.UserInclude };

/** Emails compare case-insensitively: this is the key of the per-workspace-mode unique index. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();

const DUPLICATE_EMAIL = 'a user with this email already exists';

// Maximum lengths (email, password, texts) are checked for every input in one place (graphql/input-limits.ts).
export function checkEmail(email: string): string {
  const trimmed = email.trim();
  if (!EMAIL_PATTERN.test(trimmed)) throw new ValidationFailed('email must be a valid email address');
  return trimmed;
}

/** Trimmed optional text; an empty value is stored as absent. */
const optionalText = (value: string | null | undefined) => value?.trim() || null;

function checkBillingDetails(input: BillingDetails): BillingDetails {
  const countryCode = input.countryCode.trim().toUpperCase();
  if (!isCountry(countryCode)) throw new ValidationFailed('billingDetails.countryCode must be a two-letter ISO 3166-1 country code');
  const details: BillingDetails = {
    countryCode,
    postalCode: optionalText(input.postalCode),
    state: optionalText(input.state),
    city: optionalText(input.city),
    line1: optionalText(input.line1),
    line2: optionalText(input.line2),
    name: optionalText(input.name),
  };
  if (!details.postalCode && postalCodeRequired(countryCode)) {
    throw new ValidationFailed(`billingDetails.postalCode is required for country ${countryCode}`);
  }
  return details;
}

function checkPassword(password: string) {
  if (password.length < PASSWORD_MIN_LENGTH) throw new ValidationFailed(`password must be at least ${PASSWORD_MIN_LENGTH} characters`);
}

const scryptAsync = (password: string, salt: Buffer, keyLength: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scrypt(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))));

/** A salted scrypt hash that names its parameters: `scrypt$N$r$p$<salt>$<key>` (base64). */
async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SCRYPT.saltBytes);
  const key = await scryptAsync(password, salt, SCRYPT.keyLength, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function createUser(prisma: PrismaClient, scope: Scope, input: CreateUserInput, query: Query) {
  const email = checkEmail(input.email);
  if (input.details !== undefined && input.details !== null && (typeof input.details !== 'object' || Array.isArray(input.details))) {
    throw new ValidationFailed('details must be a JSON object');
  }
  const billingDetails = input.billingDetails ? checkBillingDetails(input.billingDetails) : null;
  if (input.password !== undefined && input.password !== null) checkPassword(input.password);

  const emailNormalized = normalizeEmail(email);
  // Archived users keep their address: the unique index covers them too.
  const taken = await prisma.user.findFirst({ where: { ...inScope(scope), emailNormalized }, select: { id: true } });
  if (taken) throw new ValidationFailed(DUPLICATE_EMAIL);
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  try {
    return await prisma.$transaction(async (tx) => {
      const user = await tx.user.create({
        ...query,
        data: {
          ...inScope(scope),
          email,
          emailNormalized,
          username: input.username ?? null,
          internalId: input.internalId ?? null,
          details: (input.details ?? Prisma.DbNull) as Prisma.InputJsonValue,
          billingDetails: billingDetails ?? Prisma.DbNull,
          passwordHash,
        },
      });
      await recordEvent(tx, scope, 'user_created', userEventData(user));
      return user;
    });
  } catch (error) {
    // A concurrent create with the same address lost the race on the unique index.
    if (isUniqueViolation(error)) throw new ValidationFailed(DUPLICATE_EMAIL);
    throw error;
  }
}

export async function findUser(prisma: PrismaClient, scope: Scope, userId: string, query: Query = {}) {
  const user = await prisma.user.findFirst({ ...query, where: { id: userId, ...inScope(scope), archivedAt: null } });
  if (!user) throw new NotFound('User');
  return user;
}

export async function listUsers(prisma: PrismaClient, scope: Scope, args: UserListArgs, query: Query) {
  const { limit, skip } = pagePage(args, 20);
  const and: Prisma.UserWhereInput[] = [inScope(scope), archivedWhere(args)];
  if (args.email !== undefined && args.email !== null) and.push({ emailNormalized: normalizeEmail(args.email) });
  const where = { AND: and };
  const [users, count] = await Promise.all([
    prisma.user.findMany({ ...query, where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], skip, take: limit }),
    prisma.user.count({ where }),
  ]);
  return { users, count, pages: pageCount(count, limit) };
}

/** Archiving is a soft delete; an archived (or unknown) user is 404, so archiving twice is too. */
export async function archiveUser(prisma: PrismaClient, scope: Scope, userId: string) {
  await prisma.$transaction(async (tx) => {
    await claimArchive('User', (now) => tx.user.updateMany({ where: { id: userId, ...inScope(scope), archivedAt: null }, data: { archivedAt: now } }));
    const user = await tx.user.findUniqueOrThrow({ where: { id: userId } });
    await recordEvent(tx, scope, 'user_archived', userEventData(user));
  });
  return { success: true, archived: true };
}
