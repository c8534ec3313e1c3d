import { pino } from 'pino';
import { config } from './config.js';

// JSON lines on stdout. Key headers are redacted wherever a request object is logged.
// The CLI prints its results on stdout, so its logs go to stderr (LOG_FD=2).

/**
 * Redacted wherever logged: API keys, and card details (a `card` object and a `cvc` up to three
 * levels deep: a request's args or variables, a processor request). Nothing logs cards today;
 * this is the second line of defence (docs/decisions.md, "Payment-method sessions").
 */
export const LOG_REDACT_PATHS = [
  'req.headers["x-svc-secret-key"]',
  'req.headers["x-svc-public-key"]',
  'secretKey',
  'testSecretKey',
  'card',
  '*.card',
  '*.*.card',
  'cvc',
  '*.cvc',
  '*.*.cvc',
];

export const logger = pino(
  {
    level: config.logLevel,
    redact: LOG_REDACT_PATHS,
  },
  pino.destination({ fd: process.env.LOG_FD === '2' ? 2 : 1, sync: false }),
);
