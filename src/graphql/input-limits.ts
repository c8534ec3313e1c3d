import {
  defaultFieldResolver,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isObjectType,
  type GraphQLFieldResolver,
  type GraphQLInputType,
  type GraphQLSchema,
} from 'graphql';
import { ApiError } from '../errors.js';

// Every string a client can send has a maximum length, kept here and nowhere else. When the
// schema is built, each string argument and input field is looked up by name (a string without
// an entry stops the build) and a check is put in front of the resolvers that take it, so /v0 and
// /graphql refuse the same values before any database work. The OpenAPI document publishes the
// same numbers as maxLength. Lengths count Unicode characters (code points).

/** Maximum length of each string argument or input field, by name; a list's items use the list's name. */
export const STRING_LIMITS: Readonly<Record<string, number>> = {
  // Codes, short labels and their filters.
  country: 64,
  countryCode: 64,
  currency: 64,
  discountCode: 64,
  eventType: 64,
  events: 64,
  genres: 64,
  gtin: 64,
  pegiRating: 64,
  platform: 64,
  platforms: 64,
  postalCode: 64,
  region: 64,
  regions: 64,
  releaseDate: 64,
  systems: 64,
  tagName: 64,
  tags: 64,
  timezone: 64,
  // Tax and portal (src/tax, src/portal): a VAT number, a portal link type.
  taxId: 64,
  type: 64,
  // A card's security code (3 or 4 digits).
  cvc: 4,
  // Order, payment and subscription numbers (at most 32 characters, a `-n` suffix and a `#`).
  number: 64,
  orderIdOrNumber: 64,
  orderNumber: 64,
  // An order item's id (a UUID; anything else names no item: 404).
  itemId: 64,
  subscriptionId: 64,
  subscriptionIdOrNumber: 64,
  subscriptionNumber: 64,
  // The subscription cancel's deprecated option; a sandbox test card number (test helper).
  cancelOption: 64,
  testCard: 64,
  // A payment-method session's token (pms_ and 43 characters).
  sessionToken: 64,
  // A tokenized payment method's id (pm_…).
  paymentMethod: 255,
  // Stripe's client secrets are about 60 characters; the sandbox's are shorter.
  clientSecret: 255,
  // Chosen by the client; a copy appends "-copy".
  slug: 100,
  // Names, identifiers, address lines, searches and secrets.
  city: 255,
  // The subscriptions list's cursor (52 characters as handed out).
  cursor: 255,
  developer: 255,
  internalId: 255,
  // Portal links pass these through unchecked (the contract), bounded.
  cartOfferId: 255,
  offerId: 255,
  // License keys (src/delivery/license-keys.ts).
  keys: 255,
  // The public validation's key and instance (src/delivery/key-validation.ts).
  key: 255,
  instance: 255,
  line1: 255,
  line2: 255,
  name: 255,
  publisher: 255,
  secret: 255,
  state: 255,
  term: 255,
  termOrId: 255,
  username: 255,
  // RFC 5321's limit for an address.
  email: 254,
  // scrypt's cost barely depends on the length; the cap bounds what a request carries.
  password: 256,
  url: 2_048,
  // The orders and payments lists' filter: a URL-encoded JSON object, as long as a JSON string may be.
  customFields: 2_048,
  // A refund's key (the contract: 1 to 255 characters).
  idempotencyKey: 255,
  // Free text.
  reason: 1_000,
  warningMessage: 1_000,
  description: 10_000,
};

/** JSON values (customFields, details, media, items; request bodies use the same depth). */
export const JSON_LIMITS = { depth: 32, key: 200, string: 2_048 } as const;

/** Scalars whose own parsing bounds their size. */
const BOUNDED_SCALARS = new Set(['Boolean', 'Float', 'Int', 'PageSize', 'Timestamp', 'UUID']);
/** Scalars carrying free JSON: the JSON limits apply. `_Any` is Apollo Federation's representations. */
const JSON_SCALARS = new Set(['JSON', '_Any']);

const LONE_SURROGATE = /\p{Surrogate}/u;

/** What makes a string unfit to store (PostgreSQL text holds neither), or null. */
function textProblem(text: string): string | null {
  if (text.includes('\0')) return 'contains a NUL character';
  if (LONE_SURROGATE.test(text)) return 'contains a lone UTF-16 surrogate, which is not Unicode text';
  return null;
}

function characters(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

function checkString(text: string, max: number, where: () => string): void {
  // A character is one or two UTF-16 units: only a string longer than max needs counting.
  if (text.length > max && (text.length > 2 * max || characters(text) > max)) throw new ApiError(400, `${where()}: at most ${max} characters`);
  const problem = textProblem(text);
  if (problem) throw new ApiError(400, `${where()}: ${problem}`);
}

export interface JsonLimits {
  depth: number;
  key: number;
  string: number;
}

interface Pending {
  value: unknown;
  depth: number;
  parent?: Pending;
  step: string;
}

const pathOf = (item: Pending): string => (item.parent ? `${pathOf(item.parent)}${item.step}` : item.step);
const stepTo = (key: string, array: boolean) => (array ? `[${key}]` : `.${key}`);

/**
 * Checks every key and string of a JSON value (and its nesting) against the limits; iterative,
 * so no nesting can overflow the stack. Errors name the path, starting with `name`.
 */
export function checkJson(value: unknown, name: string, limits: JsonLimits): void {
  const pending: Pending[] = [{ value, depth: 1, step: name }];
  while (pending.length) {
    const item = pending.pop()!;
    if (typeof item.value === 'string') {
      checkString(item.value, limits.string, () => pathOf(item));
    } else if (item.value !== null && typeof item.value === 'object') {
      if (item.depth > limits.depth) throw new ApiError(400, `${pathOf(item)}: JSON nested more than ${limits.depth} levels deep`);
      const array = Array.isArray(item.value);
      for (const [key, inner] of Object.entries(item.value)) {
        if (!array) checkString(key, limits.key, () => `${pathOf(item)} (a key)`);
        pending.push({ value: inner, depth: item.depth + 1, parent: item, step: stepTo(key, array) });
      }
    }
  }
}

type Check = (value: unknown, where: string) => void;

/** The check for values of an input type, or undefined when its values need none. */
function checkFor(type: GraphQLInputType, name: string, owner: string): Check | undefined {
  const inner = getNullableType(type);
  if (isListType(inner)) {
    const item = checkFor(inner.ofType, name, owner);
    if (!item) return undefined;
    return (value, where) => {
      if (Array.isArray(value)) value.forEach((entry, index) => item(entry, `${where}[${index}]`));
    };
  }
  if (isInputObjectType(inner)) {
    const fields = Object.values(inner.getFields()).flatMap((field) => {
      const check = checkFor(field.type, field.name, inner.name);
      return check ? [[field.name, check] as const] : [];
    });
    if (fields.length === 0) return undefined;
    return (value, where) => {
      if (value === null || typeof value !== 'object') return;
      for (const [field, check] of fields) {
        const entry = (value as Record<string, unknown>)[field];
        if (entry !== undefined && entry !== null) check(entry, `${where}.${field}`);
      }
    };
  }
  if (isEnumType(inner) || BOUNDED_SCALARS.has(inner.name)) return undefined;
  if (JSON_SCALARS.has(inner.name)) return (value, where) => checkJson(value, where, JSON_LIMITS);
  if (inner.name === 'String' || inner.name === 'ID') {
    const max = STRING_LIMITS[name];
    if (max === undefined) throw new Error(`${owner}.${name} is a string without a maximum length: add "${name}" to STRING_LIMITS in src/graphql/input-limits.ts`);
    return (value, where) => {
      if (typeof value === 'string') checkString(value, max, () => where);
    };
  }
  throw new Error(`${owner}.${name} has the scalar ${inner.name}, which has no input limit: list it in src/graphql/input-limits.ts`);
}

/**
 * Puts the limit checks in front of every resolver that takes string or JSON arguments (in
 * place; returns the schema). A schema with a string argument missing from STRING_LIMITS throws.
 */
export function enforceInputLimits(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const checks = field.args.flatMap((arg) => {
        const check = checkFor(arg.type, arg.name, `${type.name}.${field.name}`);
        return check ? [[arg.name, check] as const] : [];
      });
      if (checks.length === 0) continue;
      const resolve: GraphQLFieldResolver<unknown, unknown> = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args: Record<string, unknown>, context, info) => {
        for (const [name, check] of checks) if (args[name] !== undefined && args[name] !== null) check(args[name], name);
        return resolve(source, args, context, info);
      };
    }
  }
  return schema;
}
