// The subscriptions list's cursor (docs/decisions.md, "Reading subscriptions"): the position of the
// last subscription of a page, (createdAt, id), signed with HMAC-SHA256 under CURSOR_SECRET (or a
// secret generated into DATA_DIR) together with the workspace and mode it was handed to. A cursor
// that was altered, made up, or handed to another workspace or mode fails the signature: 400.
// It is opaque to clients: base64url of version, time, id and signature, 52 characters.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ValidationFailed } from '../core/errors.js';
import type { Scope } from '../core/scope.js';
import { config } from '../config.js';
import { dataDirSecret } from '../delivery/index.js';

/** Where the next page starts after: the last subscription handed out. */
export interface CursorPosition {
  createdAt: Date;
  id: string;
}

const VERSION = 1;
// version (1) + milliseconds (6, to the year 10889) + UUID (16) + signature (16, 128 bits).
const TIME_BYTES = 6;
const PAYLOAD_BYTES = 1 + TIME_BYTES + 16;
const SIGNATURE_BYTES = 16;
// 39 bytes: a multiple of 3, so base64url has no padding and no spare bits (one text per cursor).
const CURSOR_LENGTH = ((PAYLOAD_BYTES + SIGNATURE_BYTES) / 3) * 4;

let secret: Buffer | undefined;
const signingKey = () => (secret ??= Buffer.from(config.cursorSecret ?? dataDirSecret('cursor.secret')));

/** The signature binds the position to the list, the workspace and the mode it was read in. */
const sign = (scope: Scope, payload: Buffer) =>
  createHmac('sha256', signingKey())
    .update(`subscriptions.list\n${scope.workspaceId}\n${scope.livemode ? 'live' : 'test'}\n`)
    .update(payload)
    .digest()
    .subarray(0, SIGNATURE_BYTES);

export function encodeCursor(scope: Scope, position: CursorPosition): string {
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  payload.writeUInt8(VERSION, 0);
  payload.writeUIntBE(position.createdAt.getTime(), 1, TIME_BYTES);
  Buffer.from(position.id.replaceAll('-', ''), 'hex').copy(payload, 1 + TIME_BYTES);
  return Buffer.concat([payload, sign(scope, payload)]).toString('base64url');
}

const INVALID = 'cursor: not a cursor of this list for these keys (pass data.cursor of the previous page as it is)';

/** The position a cursor names, when it is one this service handed to this workspace and mode; 400 otherwise. */
export function decodeCursor(scope: Scope, cursor: string): CursorPosition {
  if (cursor.length !== CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw new ValidationFailed(INVALID);
  const bytes = Buffer.from(cursor, 'base64url');
  const payload = bytes.subarray(0, PAYLOAD_BYTES);
  const signature = bytes.subarray(PAYLOAD_BYTES);
  if (!timingSafeEqual(signature, sign(scope, payload)) || payload.readUInt8(0) !== VERSION) throw new ValidationFailed(INVALID);
  const hex = payload.subarray(1 + TIME_BYTES).toString('hex');
  return {
    createdAt: new Date(payload.readUIntBE(1, TIME_BYTES)),
    id: `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`,
  };
}
