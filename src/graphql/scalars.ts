import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { isUuid } from '../core/uuid.js';
import { JSON_LIMITS } from './input-limits.js';

// Timestamps travel as JSON numbers up to 2^53-1, beyond GraphQL's 32-bit Int.
export const MAX_TIMESTAMP = Number.MAX_SAFE_INTEGER;

function parseTimestamp(value: unknown): number {
  const number = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0 || number > MAX_TIMESTAMP) {
    throw new GraphQLError(`Timestamp must be an integer from 0 to ${MAX_TIMESTAMP}`);
  }
  return number;
}

export const TimestampScalar = new GraphQLScalarType<number, number>({
  name: 'Timestamp',
  description: `Integer Unix time from 0 to ${MAX_TIMESTAMP}`,
  // A Date column is exposed as is: converting here spares a resolver call per field and row.
  serialize: (value) => parseTimestamp(value instanceof Date ? Math.floor(value.getTime() / 1000) : value),
  parseValue: parseTimestamp,
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind !== Kind.INT && ast.kind !== Kind.STRING) throw new GraphQLError('Timestamp must be an integer');
    return parseTimestamp(ast.value);
  },
});

// A page size is clamped to its list's bounds (spec: larger values give 200, not 400), so any
// integer is accepted here, even beyond GraphQL's 32-bit Int.
function parsePageSize(value: unknown): number {
  const number = typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number)) throw new GraphQLError('Page size must be an integer');
  return number;
}

export const PageSizeScalar = new GraphQLScalarType<number, number>({
  name: 'PageSize',
  description: "An integer page size; values outside the list's bounds are clamped",
  serialize: parsePageSize,
  parseValue: parsePageSize,
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind !== Kind.INT && ast.kind !== Kind.STRING) throw new GraphQLError('Page size must be an integer');
    return parsePageSize(ast.value);
  },
});

function parseUuid(value: unknown): string {
  if (typeof value !== 'string' || !isUuid(value)) throw new GraphQLError(`Expected a UUID, got ${JSON.stringify(value)}`);
  return value.toLowerCase();
}

export const UuidScalar = new GraphQLScalarType<string, string>({
  name: 'UUID',
  description: 'A UUID in its canonical 8-4-4-4-12 hexadecimal form',
  serialize: (value) => String(value),
  parseValue: parseUuid,
  parseLiteral: (ast: ValueNode) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('UUID must be a string');
    return parseUuid(ast.value);
  },
});

function literalToJson(ast: ValueNode): unknown {
  switch (ast.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return ast.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(ast.value);
    case Kind.OBJECT:
      return Object.fromEntries(ast.fields.map((field) => [field.name.value, literalToJson(field.value)]));
    case Kind.LIST:
      return ast.values.map(literalToJson);
    case Kind.NULL:
      return null;
    default:
      throw new GraphQLError('JSON literals cannot hold variables');
  }
}

export const JsonScalar = new GraphQLScalarType<unknown, unknown>({
  name: 'JSON',
  description: `Any JSON value, nested at most ${JSON_LIMITS.depth} levels deep, with keys of at most ${JSON_LIMITS.key} and strings of at most ${JSON_LIMITS.string} characters`,
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: literalToJson,
});
