// The webhooks domain's door: what other domains and the processes may use of it
// (docs/decisions.md "One door per domain"). Everything else in src/webhooks is private to it.

/** The API and worker processes read which hosts a webhook may reach from their environment at start. */
export { webhookAllowHostsFromEnv } from './ssrf.js';
