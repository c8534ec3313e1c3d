import { isUuid, uuidv7 } from '../src/core/uuid.js';

// The ids of rows written by SQL of our own (src/core/uuid.ts): version 7 as Prisma's @default(uuid(7)).
test('uuidv7: a version 7, RFC 9562 variant UUID that starts with its millisecond time, ordered by it, random after it', () => {
  const at = Date.UTC(2026, 10, 27, 13, 0, 0, 123);
  const id = uuidv7(at);
  expect(isUuid(id)).toBe(true);
  expect(id[14]).toBe('7');
  expect(['8', '9', 'a', 'b']).toContain(id[19]);
  expect(parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(at);
  expect(uuidv7(at + 1) > uuidv7(at)).toBe(true);
  expect(new Set(Array.from({ length: 1000 }, () => uuidv7(at))).size).toBe(1000);
});
