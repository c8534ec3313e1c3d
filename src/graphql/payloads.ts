import { builder } from './builder.js';

/** `{success: true}`: the result of archive and cancel operations. */
export const SuccessPayload = builder.simpleObject('SuccessPayload', {
  fields: (t) => ({ success: t.boolean() }),
});
