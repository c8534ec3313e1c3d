// A route's GraphQL arguments from a request, read and checked here once: the path parameters,
// plus the query string for a read or the JSON body for a write (never both: decisions.md, "Writes
// take their arguments from the path and the JSON body only"). Each given value is checked against
// its argument's type as GraphQL would coerce it, without its loose casts and without echoing the
// value; operations.ts then runs the route's document with them.
import {
  coerceInputValue,
  getNamedType,
  getNullableType,
  isInputObjectType,
  isListType,
  isNonNullType,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLNamedType,
} from 'graphql';
import { ApiError } from '../errors.js';
import type { ServedRoute } from './router.js';

export type Arguments = Record<string, unknown>;

const isList = (arg: GraphQLArgument) => isListType(getNullableType(arg.type));

/**
 * One value of a query string as its GraphQL type reads it: a number for Int and Float when the
 * text is one, `true` only for the literal "true", an input object from its JSON; any other text
 * stays text for the scalar or enum to parse (Timestamp, PageSize and UUID read strings themselves).
 */
function fromText(type: GraphQLNamedType, text: string): unknown {
  if (type.name === 'Boolean') return text === 'true';
  if (type.name === 'Int' || type.name === 'Float') {
    const number = Number(text);
    return Number.isFinite(number) ? number : text;
  }
  if (isInputObjectType(type)) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

/**
 * The query string's values by parameter name, in one pass. `ids[]=a` and `ids[0]=a` (any
 * bracketed suffix, as qs-style clients write lists) are values of `ids` given as a list.
 */
function queryValues(query: URLSearchParams): Map<string, { texts: string[]; bracketed: boolean }> {
  const byName = new Map<string, { texts: string[]; bracketed: boolean }>();
  for (const [key, text] of query) {
    const bracket = key.indexOf('[');
    const name = bracket > 0 && key.endsWith(']') ? key.slice(0, bracket) : key;
    let entry = byName.get(name);
    if (!entry) byName.set(name, (entry = { texts: [], bracketed: false }));
    entry.texts.push(text);
    if (name !== key) entry.bracketed = true;
  }
  return byName;
}

/**
 * A read's arguments from its query string. A list repeats its parameter (`ids=a&ids=b`); any
 * other parameter is given once, and an empty value counts as absent. A parameter given as a list
 * where one value is expected stays a list, which its type refuses (400).
 */
function queryArguments(args: readonly GraphQLArgument[], query: URLSearchParams): Arguments {
  const given = queryValues(query);
  const values: Arguments = {};
  for (const arg of args) {
    const entry = given.get(arg.name);
    if (!entry) continue;
    const type = getNamedType(arg.type);
    if (isList(arg)) values[arg.name] = entry.texts.map((text) => fromText(type, text));
    else if (entry.bracketed || entry.texts.length > 1) values[arg.name] = entry.texts;
    else if (entry.texts[0]) values[arg.name] = fromText(type, entry.texts[0]);
  }
  return values;
}

/**
 * A write's arguments from its JSON body: the fields naming an argument, as they are (null clears
 * a nullable field; an absent one keeps its value). Unknown fields are ignored, and so are fields
 * repeating a path parameter (the path names the record).
 */
function bodyArguments(route: ServedRoute, body: Record<string, unknown>): Arguments {
  const values: Arguments = {};
  for (const arg of route.args) {
    if (Object.hasOwn(body, arg.name) && !route.pathParams.includes(arg.name)) values[arg.name] = body[arg.name];
  }
  return values;
}

/** The path parameters, decoded; they win over anything else of the same name. */
function pathArguments(route: ServedRoute, pathValues: readonly string[]): Arguments {
  const values: Arguments = {};
  route.pathParams.forEach((name, index) => {
    try {
      values[name] = decodeURIComponent(pathValues[index] ?? '');
    } catch {
      throw new ApiError(400, `${name}: malformed percent-encoding in the path`);
    }
  });
  return values;
}

/**
 * A given value must have its argument's type exactly: GraphQL would wrap a lone value into a
 * one-item list, which a JSON body does not get either. Its messages end with the rejected value,
 * which is cut off: a misplaced secret must not be echoed.
 */
function check(arg: GraphQLArgument, value: unknown): void {
  if (isList(arg) && value !== null && !Array.isArray(value)) throw new ApiError(400, `${arg.name}: expected an array`);
  coerceInputValue(value, arg.type as GraphQLInputType, (path, _value, error) => {
    const where = [arg.name, ...path.map(String)].join('.');
    throw new ApiError(400, `${where}: ${error.message.replace(/(value)\s*:[\s\S]*$/i, '$1')}`);
  });
}

/** The checked arguments of a read (from its query string) or a write (from its JSON body, {} when it has none). */
export function routeArguments(route: ServedRoute, pathValues: readonly string[], input: { query: URLSearchParams } | { body: Record<string, unknown> }): Arguments {
  const values = { ...('query' in input ? queryArguments(route.args, input.query) : bodyArguments(route, input.body)), ...pathArguments(route, pathValues) };
  for (const arg of route.args) {
    if (Object.hasOwn(values, arg.name)) check(arg, values[arg.name]);
    else if (isNonNullType(arg.type) && arg.defaultValue === undefined) throw new ApiError(400, `${arg.name}: required`);
  }
  return values;
}
