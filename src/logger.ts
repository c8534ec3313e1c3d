import { pino } from 'pino';
import { config } from './config.js';

// JSON lines on stdout. Key headers are redacted wherever a request object is logged.
// The CLI prints its results on stdout, so its logs go to stderr (LOG_FD=2).
export const logger = pino(
  {
    level: config.logLevel,
    redact: ['req.headers["x-svc-secret-key"]', 'req.headers["x-svc-public-key"]', 'secretKey', 'testSecretKey'],
  },
  pino.destination({ fd: process.env.LOG_FD === '2' ? 2 : 1, sync: false }),
);
