import { randomUUID } from 'node:crypto';
import { call, keyHeaders, newWorkspace, raw, type Workspace } from './support/api.js';
import { restClient } from './support/client.js';
import { PASSWORD, db, createUser, newUser } from './support/users-suite.js';

describe('users: create', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Users create');
  });

  test('returns every field in the envelope, trims the email, round-trips details and never returns the password', async () => {
    const details = { plan: 'gold', tags: ['a', 'b'], nested: { level: 2, flag: true, none: null } };
    const { data, response } = await createUser(ws, {
      email: '  Ada.Lovelace@Example.com ',
      username: 'ada',
      internalId: 'crm-42',
      details,
      billingDetails: { countryCode: 'us', postalCode: ' 94105 ', state: 'CA', city: 'San Francisco', line1: '1 Main St', name: 'Ada L' },
      password: PASSWORD,
    });
    expect(response.status).toBe(200);
    expect(data!.status).toBe('success');
    const { user } = data!.data;
    expect(user).toEqual({
      object: 'user',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      username: 'ada',
      email: 'Ada.Lovelace@Example.com',
      details,
      internalId: 'crm-42',
      billingDetails: { countryCode: 'US', postalCode: '94105', state: 'CA', city: 'San Francisco', line1: '1 Main St', line2: null, name: 'Ada L' },
      createdAt: expect.any(Number),
    });
    expect(Math.abs(user.createdAt - Date.now() / 1000)).toBeLessThan(60);
    expect(JSON.stringify(data)).not.toMatch(/password|correct horse/i);

    const stored = await db.query('SELECT "email", "emailNormalized", "passwordHash", "livemode" FROM "User" WHERE id = $1', [user.id]);
    expect(stored.rows).toHaveLength(1);
    const row = stored.rows[0];
    expect(row).toMatchObject({ email: 'Ada.Lovelace@Example.com', emailNormalized: 'ada.lovelace@example.com', livemode: true });
    expect(row.passwordHash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]{86}==$/);
    expect(row.passwordHash).not.toContain(PASSWORD);

    // The list returns the same object, still without the password.
    const list = await restClient(ws).GET('/v0/users/list', { params: { query: { email: 'ada.lovelace@example.com' } } });
    expect(list.response.status).toBe(200);
    expect(list.data!.data).toEqual({ users: [user], count: 1, pages: 1 });
    expect(JSON.stringify(list.data)).not.toMatch(/password|correct horse/i);
  });

  test('two users with the same password get different salted hashes', async () => {
    const a = await newUser(ws, { password: PASSWORD });
    const b = await newUser(ws, { password: PASSWORD });
    const { rows } = await db.query('SELECT "passwordHash" FROM "User" WHERE id = ANY($1::uuid[])', [[a.id, b.id]]);
    expect(rows).toHaveLength(2);
    expect(rows[0].passwordHash).not.toBe(rows[1].passwordHash);
  });

  test('only email is required; the optional fields come back null', async () => {
    const user = await newUser(ws, { email: 'minimal@example.org' });
    expect(user).toMatchObject({ email: 'minimal@example.org', username: null, internalId: null, details: null, billingDetails: null });
    const { rows } = await db.query('SELECT "passwordHash" FROM "User" WHERE id = $1', [user.id]);
    expect(rows[0].passwordHash).toBeNull();
  });

  test('a duplicate email in another case is 400 and stores nothing', async () => {
    await newUser(ws, { email: 'Dup@Example.com' });
    const { error, response } = await createUser(ws, { email: 'dUP@example.COM', username: 'second' });
    expect(response.status).toBe(400);
    expect(error).toEqual({ status: 'error', error: { message: 'a user with this email already exists' } });
    const { rows } = await db.query('SELECT count(*)::int AS n FROM "User" WHERE "workspaceId" = $1 AND "emailNormalized" = $2', [ws.workspaceId, 'dup@example.com']);
    expect(rows[0].n).toBe(1);
  });

  test('concurrent creates with one email: exactly one wins, the others get 400', async () => {
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => createUser(ws, { email: i % 2 ? 'Race@Example.com' : 'race@example.com' })));
    expect(results.map((r) => r.response.status).sort()).toEqual([200, 400, 400, 400, 400]);
    const { rows } = await db.query('SELECT count(*)::int AS n FROM "User" WHERE "workspaceId" = $1 AND "emailNormalized" = $2', [ws.workspaceId, 'race@example.com']);
    expect(rows[0].n).toBe(1);
  });

  test.each(['not-an-email', 'a@b', 'two words@example.com', '@example.com', 'a@-example.com', '', '   '])(
    'an invalid email %j is 400',
    async (email) => {
      const { error, response } = await createUser(ws, { email });
      expect(response.status).toBe(400);
      expect(error!.error.message).toBe('email must be a valid email address');
    },
  );

  test('an email over 254 characters is 400', async () => {
    const { error, response } = await createUser(ws, { email: `${'x'.repeat(250)}@example.com` });
    expect(response.status).toBe(400);
    expect(error!.error.message).toBe('email: at most 254 characters');
  });

  test('billingDetails: an unknown country is 400', async () => {
    for (const countryCode of ['ZZ', 'USA', '', 'U1']) {
      const { error, response } = await createUser(ws, { email: `${randomUUID()}@example.com`, billingDetails: { countryCode, postalCode: '1' } });
      expect(response.status).toBe(400);
      expect(error!.error.message).toMatch(/countryCode/);
    }
  });

  test('billingDetails: a missing or blank postal code is 400 where the country requires one', async () => {
    for (const billingDetails of [{ countryCode: 'US' }, { countryCode: 'US', postalCode: '  ' }, { countryCode: 'DE', postalCode: null }]) {
      const { error, response } = await createUser(ws, { email: `${randomUUID()}@example.com`, billingDetails });
      expect(response.status).toBe(400);
      expect(error!.error.message).toBe(`billingDetails.postalCode is required for country ${billingDetails.countryCode}`);
    }
  });

  test('billingDetails: no postal code needed for AE or XK', async () => {
    for (const countryCode of ['AE', 'XK']) {
      const user = await newUser(ws, { billingDetails: { countryCode, city: 'Somewhere' } });
      expect(user.billingDetails).toEqual({ countryCode, postalCode: null, state: null, city: 'Somewhere', line1: null, line2: null, name: null });
    }
  });

  test('a password shorter than 8 characters is 400 and is not echoed', async () => {
    const { error, response } = await createUser(ws, { email: `${randomUUID()}@example.com`, password: 'short7!' });
    expect(response.status).toBe(400);
    expect(error!.error.message).toBe('password must be at least 8 characters');
  });

  test.each([
    ['email missing', { username: 'x' }],
    ['email a number', { email: 42 }],
    ['email null', { email: null }],
    ['username a number', { email: 'types1@example.com', username: 5 }],
    ['details a string', { email: 'types2@example.com', details: 'gold' }],
    ['details an array', { email: 'types3@example.com', details: [1, 2] }],
    ['billingDetails a string', { email: 'types4@example.com', billingDetails: 'US' }],
    ['countryCode a number', { email: 'types5@example.com', billingDetails: { countryCode: 1 } }],
    ['countryCode missing', { email: 'types6@example.com', billingDetails: { postalCode: '10001' } }],
    ['an unknown billingDetails key', { email: 'types7@example.com', billingDetails: { countryCode: 'AE', zip: '1' } }],
    ['password a number', { email: 'types8@example.com', password: 12345678 }],
  ] as [string, Record<string, unknown>][])('wrong types: %s is 400 and stores nothing', async (_name, body) => {
    const stored = async () => (await db.query('SELECT count(*)::int AS n FROM "User" WHERE "workspaceId" = $1', [ws.workspaceId])).rows[0].n;
    const before = await stored();
    const res = await call('POST', '/v0/users/create', ws, body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: 'error', error: { message: expect.any(String) } });
    expect(await stored()).toBe(before);
  });

  test('a password of the wrong type is 400 without echoing the value', async () => {
    const res = await call('POST', '/v0/users/create', ws, { email: 'types9@example.com', password: 987654321 });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^password: /);
    expect(res.body.error.message).not.toContain('987654321');
  });

  test('a body that is not JSON is 400', async () => {
    const res = await raw('POST', '/v0/users/create', { headers: keyHeaders(ws), body: '{"email":' });
    expect(res.status).toBe(400);
    expect(res.body.status).toBe('error');
  });

  test('without keys 401; with only the public key 401 and nothing stored', async () => {
    const anonymous = await raw('POST', '/v0/users/create', { body: JSON.stringify({ email: 'anon@example.com' }) });
    expect(anonymous.status).toBe(401);
    const { error, response } = await createUser(ws, { email: 'readonly@example.com' }, { write: false });
    expect(response.status).toBe(401);
    expect(error!.status).toBe('error');
    const { rows } = await db.query('SELECT count(*)::int AS n FROM "User" WHERE "emailNormalized" = ANY($1)', [['anon@example.com', 'readonly@example.com']]);
    expect(rows[0].n).toBe(0);
  });
});

describe('users: list', () => {
  let ws: Workspace;
  const created: { id: string }[] = [];
  beforeAll(async () => {
    ws = await newWorkspace('Users list');
    for (let i = 0; i < 5; i += 1) created.push(await newUser(ws, { username: `u${i}`, password: PASSWORD }));
  });
  const list = (query: Record<string, unknown>) => restClient(ws, { write: false }).GET('/v0/users/list', { params: { query } });
  const ids = (users: { id: string }[]) => users.map((u) => u.id);
  const newestFirst = () => ids([...created].reverse());

  test('defaults: page 1, limit 20, newest first, count and pages always present', async () => {
    const { data, response } = await list({});
    expect(response.status).toBe(200);
    expect(ids(data!.data.users)).toEqual(newestFirst());
    expect(data!.data.count).toBe(5);
    expect(data!.data.pages).toBe(1);
    expect(JSON.stringify(data)).not.toMatch(/password|correct horse/i);
  });

  test('page and limit slice the list; pages = ceil(count / limit)', async () => {
    const pages = await Promise.all([1, 2, 3, 4].map((page) => list({ page, limit: 2 })));
    expect(pages.map((p) => p.data!.data.count)).toEqual([5, 5, 5, 5]);
    expect(pages.map((p) => p.data!.data.pages)).toEqual([3, 3, 3, 3]);
    expect(ids(pages[0]!.data!.data.users)).toEqual(newestFirst().slice(0, 2));
    expect(ids(pages[1]!.data!.data.users)).toEqual(newestFirst().slice(2, 4));
    expect(ids(pages[2]!.data!.data.users)).toEqual(newestFirst().slice(4));
    expect(pages[3]!.data!.data.users).toEqual([]);
  });

  test.each([0, -1])('page=%i is 400', async (page) => {
    const { error, response } = await list({ page });
    expect(response.status).toBe(400);
    expect(error!.error.message).toBe('page must be >= 1');
  });

  test('limit is clamped to 1..100, never rejected', async () => {
    const big = await list({ limit: 500 });
    expect(big.response.status).toBe(200);
    expect(big.data!.data).toMatchObject({ count: 5, pages: 1 });
    expect(big.data!.data.users).toHaveLength(5);
    const small = await list({ limit: 0 });
    expect(small.response.status).toBe(200);
    expect(small.data!.data).toMatchObject({ count: 5, pages: 5 });
    expect(small.data!.data.users).toHaveLength(1);
  });

  test('a non-numeric page is 400', async () => {
    const res = await raw('GET', '/v0/users/list', { headers: keyHeaders(ws, { write: false }), query: 'page=two' });
    expect(res.status).toBe(400);
  });

  test('the email filter is exact and case-insensitive', async () => {
    const target = await newUser(ws, { email: 'Filter.Me@Example.com' });
    await newUser(ws, { email: 'filter.me.too@example.com' });
    const { data } = await list({ email: 'FILTER.me@example.COM' });
    expect(ids(data!.data.users)).toEqual([target.id]);
    expect(data!.data.count).toBe(1);
    const none = await list({ email: 'filter.me' });
    expect(none.data!.data).toEqual({ users: [], count: 0, pages: 0 });
  });

  test('without a key 401', async () => {
    const res = await raw('GET', '/v0/users/list');
    expect(res.status).toBe(401);
  });
});

describe('users: archive', () => {
  let ws: Workspace;
  beforeAll(async () => {
    ws = await newWorkspace('Users archive');
  });
  const archive = (userId: string, key = {}) => restClient(ws, key).PATCH('/v0/users/{userId}/archive', { params: { path: { userId } } });
  const list = (query: Record<string, unknown> = {}) => restClient(ws).GET('/v0/users/list', { params: { query } });

  test('returns success and the deprecated archived flag; hides the user; archived=true and withArchived=true list it', async () => {
    const kept = await newUser(ws);
    const gone = await newUser(ws);
    const { data, response } = await archive(gone.id);
    expect(response.status).toBe(200);
    expect(data).toEqual({ status: 'success', data: { success: true, archived: true } });

    const { rows } = await db.query('SELECT "archivedAt" FROM "User" WHERE id = $1', [gone.id]);
    expect(rows[0].archivedAt).toBeInstanceOf(Date);

    const live = await list();
    expect(live.data!.data.users.map((u: { id: string }) => u.id)).toEqual([kept.id]);
    expect(live.data!.data.count).toBe(1);
    const archivedOnly = await list({ archived: true });
    expect(archivedOnly.data!.data.users.map((u: { id: string }) => u.id)).toEqual([gone.id]);
    const both = await list({ withArchived: true });
    expect(both.data!.data.users.map((u: { id: string }) => u.id)).toEqual([gone.id, kept.id]);
    const archivedWins = await list({ archived: true, withArchived: true });
    expect(archivedWins.data!.data.users.map((u: { id: string }) => u.id)).toEqual([gone.id]);
  });

  test('archiving twice is 404; an archived user still holds its email', async () => {
    const user = await newUser(ws, { email: 'Archived@Example.com' });
    expect((await archive(user.id)).response.status).toBe(200);
    const again = await archive(user.id);
    expect(again.response.status).toBe(404);
    expect(again.error!.status).toBe('error');
    const reuse = await createUser(ws, { email: 'archived@example.com' });
    expect(reuse.response.status).toBe(400);
    expect(reuse.error!.error.message).toBe('a user with this email already exists');
  });

  test('an unknown id is 404, a malformed id 400, a read-only key 401 (and nothing is archived)', async () => {
    expect((await archive(randomUUID())).response.status).toBe(404);
    expect((await archive('not-a-uuid')).response.status).toBe(400);
    const user = await newUser(ws);
    expect((await archive(user.id, { write: false })).response.status).toBe(401);
    const { rows } = await db.query('SELECT "archivedAt" FROM "User" WHERE id = $1', [user.id]);
    expect(rows[0].archivedAt).toBeNull();
  });
});
