import { randomUUID } from 'node:crypto';

const REQUEST_ID = /^[\x21-\x7e]{1,200}$/;

/** The caller's x-request-id when it is 1-200 printable ASCII characters without spaces, else a new UUID. */
export const requestIdFor = (given: string | null | undefined): string => (given && REQUEST_ID.test(given) ? given : randomUUID());
