import { newWorkspace } from './support/api.js';
import { ok } from './support/responses.js';
import { buyMany, createdAtOf, list, monthlyElement, walk } from './support/subscriptions-list.js';

// The cursor walk of GET /v0/subscriptions/list over 120 subscriptions while more are bought
// through the hosted checkout (the rest of the list's rules: test/subscriptions-read.test.ts,
// apart so that the suite's workers share the time of this long one).

const SLOW = 600_000;
const TEST = { mode: 'test' } as const;

describe('a walk over 120 subscriptions while more are bought', () => {
  test('looping on hasMore visits each existing subscription exactly once, newest first, and no new one twice', async () => {
    const ws = await newWorkspace('Subscriptions walk', ['testMode=true']);
    const elements = await Promise.all(Array.from({ length: 5 }, () => monthlyElement(ws)));
    const existing = await buyMany(elements, 120, 8);
    expect(new Set(existing).size).toBe(120);

    const first = await ok(list(ws, { take: 1000 }));
    expect(first).toMatchObject({ count: 120, hasMore: true });
    expect(first.subscriptions).toHaveLength(100);

    // Checkouts go on during the walk: after each page the walk waits for one more to finish, so
    // pages and new subscriptions interleave whatever the machine's speed.
    const bought: string[] = [];
    let finished = false;
    let wake: (() => void) | undefined;
    const buying = buyMany(elements, 20, 2, (number) => {
      bought.push(number);
      wake?.();
    }).finally(() => {
      finished = true;
      wake?.();
    });
    const boughtAtPages: number[] = [];
    const between = async () => {
      const seen = bought.length;
      boughtAtPages.push(seen);
      while (!finished && bought.length === seen) await new Promise<void>((resolve) => (wake = resolve));
    };
    const { rows, pages } = await walk(ws, { take: 7 }, TEST, between);
    await buying;
    expect(bought).toHaveLength(20);

    const visited = rows.map((row) => row.id);
    const counts = new Map<string, number>();
    for (const id of visited) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect([...counts.entries()].filter(([, n]) => n > 1)).toEqual([]);
    expect(existing.filter((number) => counts.get(number) !== 1)).toEqual([]);
    const known = new Set([...existing, ...bought]);
    expect(visited.filter((id) => !known.has(id))).toEqual([]);
    // The walk interleaved with the checkouts (new subscriptions between many of its pages), and
    // its pages were full until the last.
    expect(new Set(boughtAtPages).size).toBeGreaterThanOrEqual(10);
    expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(120 / 7));
    expect(pages.slice(0, -1).every((page) => page.size === 7 && page.hasMore && page.cursor)).toBe(true);
    expect(pages.slice(1).every((page) => page.count === null)).toBe(true);
    // Newest first by the exact creation time (ties by id).
    const exact = await createdAtOf(ws, visited);
    const times = visited.map((id) => exact.get(id)!.getTime());
    expect(times.every((time, i) => i === 0 || time <= times[i - 1]!)).toBe(true);

    // A walk after it all sees every one, once.
    const after = await walk(ws, { take: 100 });
    expect(after.rows).toHaveLength(140);
    expect(new Set(after.rows.map((row) => row.id))).toEqual(known);
    expect(after.pages.map((page) => [page.size, page.count])).toEqual([[100, 140], [40, null]]);
  }, SLOW);
});
