import { logger } from './logger.js';
import { startServer } from './server.js';

// Entry point of `npm start`: the whole service on embedded defaults unless configured otherwise.
const server = await startServer();
logger.info({ url: server.url }, 'listening');
console.log(`Commerce API listening on ${server.url} (REST ${server.url}/v0, GraphQL ${server.url}/graphql)`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  try {
    await server.close();
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, 'unclean shutdown');
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
