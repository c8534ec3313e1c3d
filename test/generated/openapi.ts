// Placeholder: replaced by `npm run generate` (openapi-typescript over schema/openapi.json).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type paths = any;
