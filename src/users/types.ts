import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../graphql/builder.js';
import { scopeOf } from '../graphql/context.js';
import * as users from './service.js';

const BillingDetails = builder.simpleObject('BillingDetails', {
  fields: (t) => ({
    countryCode: t.string(),
    postalCode: t.string({ nullable: true }),
    state: t.string({ nullable: true }),
    city: t.string({ nullable: true }),
    line1: t.string({ nullable: true }),
    line2: t.string({ nullable: true }),
    name: t.string({ nullable: true }),
  }),
});

const BillingDetailsInput = builder.inputType('BillingDetailsInput', {
  fields: (t) => ({
    countryCode: t.string({ required: true, description: 'ISO 3166-1 alpha-2 code (XK included); case-insensitive' }),
    postalCode: t.string({ description: 'Required for countries whose addresses need one (e.g. US, DE)' }),
    state: t.string(),
    city: t.string(),
    line1: t.string(),
    line2: t.string(),
    name: t.string(),
  }),
});

// The password hash is deliberately not a field: it never leaves the service.
export const User = builder.prismaObject('User', {
  fields: (t) => ({
    object: t.string({ resolve: () => 'user' }),
    id: t.exposeID('id'),
    username: t.exposeString('username', { nullable: true }),
    email: t.exposeString('email', { nullable: true }),
    details: t.expose('details', { type: 'JSON', nullable: true }),
    internalId: t.exposeString('internalId', { nullable: true }),
    billingDetails: t.field({
      type: BillingDetails,
      nullable: true,
      select: { billingDetails: true },
      resolve: (u) => u.billingDetails as users.BillingDetails | null,
    }),
    createdAt: t.expose('createdAt', { type: 'Timestamp' }),
  }),
});

builder.asEntity(User, {
  key: builder.selection<{ id: string }>('id'),
  resolveReference: async ({ id }, ctx) => users.findUser(ctx.prisma, await scopeOf(ctx, 'read'), id),
});

const UserList = builder.simpleObject('UserList', {
  fields: (t) => ({ users: t.field({ type: [User] }), count: t.int(), pages: t.int() }),
});
const UserPayload = builder.simpleObject('UserPayload', { fields: (t) => ({ user: t.field({ type: User }) }) });
const UserArchivePayload = builder.simpleObject('UserArchivePayload', {
  fields: (t) => ({
    success: t.boolean(),
    archived: t.boolean({ deprecationReason: 'Use success' }),
  }),
});

const pageArgs = builder.args((t) => ({
  page: t.int({ description: '1-based page number; default 1; below 1 is a 400' }),
  limit: t.field({ type: 'PageSize', description: 'Page size; default 20, clamped to 1..100' }),
}));

builder.queryFields((t) => ({
  users: t.field({
    type: UserList,
    description: 'Users (buyers), newest first, page-paginated; count and pages are always filled in',
    args: {
      ...pageArgs,
      archived: t.arg.boolean({ description: 'Only archived users (wins over withArchived)' }),
      withArchived: t.arg.boolean({ description: 'Archived and live users' }),
      email: t.arg.string({ description: 'Exact email address, compared case-insensitively' }),
    },
    resolve: async (_root, args, ctx, info) =>
      users.listUsers(ctx.prisma, await scopeOf(ctx, 'read'), args, queryFromInfo({ context: ctx, info, path: ['users'] })),
  }),
}));

builder.mutationFields((t) => ({
  createUser: t.field({
    type: UserPayload,
    args: {
      email: t.arg.string({ required: true, description: 'Unique per workspace and mode, compared case-insensitively (archived users included)' }),
      username: t.arg.string(),
      internalId: t.arg.string(),
      details: t.arg({ type: 'JSON', description: 'A JSON object' }),
      billingDetails: t.arg({ type: BillingDetailsInput }),
      password: t.arg.string({ description: `At least ${users.PASSWORD_MIN_LENGTH} characters; stored only as a salted scrypt hash, never returned` }),
    },
    resolve: async (_root, args, ctx, info) => ({
      user: await users.createUser(ctx.prisma, await scopeOf(ctx, 'write'), args, queryFromInfo({ context: ctx, info, path: ['user'] })),
    }),
  }),
  archiveUser: t.field({
    type: UserArchivePayload,
    args: { userId: t.arg({ type: 'UUID', required: true }) },
    resolve: async (_root, args, ctx) => users.archiveUser(ctx.prisma, await scopeOf(ctx, 'write'), args.userId),
  }),
}));
