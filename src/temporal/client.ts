// The Temporal cluster this process talks to: TEMPORAL_ADDRESS (with namespace, TLS and API key
// options) or, when unset, the local dev server for DATA_DIR (started here or reused). The entry
// points connect once (startServer, src/worker-main.ts) and hand the TemporalConnection to
// whoever starts or signals workflows: the request context (Context.temporal), the services
// through their parameters, the worker's activities through ActivityDependencies.
import { readFileSync } from 'node:fs';

import { Client, Connection, isGrpcServiceError, ServiceError, type TLSConfig } from '@temporalio/client';

import { config } from '../config.js';
import { startDevServer } from './dev-server.js';

/** What a client Connection and a worker's NativeConnection both need. */
export interface TemporalConnectionOptions {
  address: string;
  tls?: TLSConfig;
  apiKey?: string;
}

export interface TemporalConnection {
  client: Client;
  namespace: string;
  address: string;
  /** The task queue the workers of this deployment poll. */
  taskQueue: string;
  /** The dev server's web UI; undefined for a configured cluster. */
  uiUrl?: string;
  /** For workers: NativeConnection.connect(connectionOptions). */
  connectionOptions: TemporalConnectionOptions;
  /** Rejects when the dev server this process started exits unexpectedly; never resolves. */
  failure: Promise<never>;
  /** Closes the client connection, then the dev server if this process started it. */
  stop(): Promise<void>;
}

// gRPC's UNAVAILABLE and DEADLINE_EXCEEDED: the cluster did not answer (after the client's own retries).
const UNREACHABLE_CODES = [14, 4];

/** The Temporal cluster did not answer the call (down, restarting, unreachable): the caller may retry; a 503, not a 500. */
export function temporalUnreachable(error: unknown): boolean {
  const grpc = error instanceof ServiceError ? error.cause : error;
  return isGrpcServiceError(grpc) && UNREACHABLE_CODES.includes(grpc.code);
}

function tlsOptions(settings: typeof config.temporal): TLSConfig | undefined {
  const { tls, tlsCertPath, tlsKeyPath, tlsCaPath, tlsServerName } = settings;
  if (Boolean(tlsCertPath) !== Boolean(tlsKeyPath)) {
    throw new Error('TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH go together (mutual TLS needs both)');
  }
  if (!tls && !tlsCertPath && !tlsCaPath && !tlsServerName) return undefined;
  return {
    clientCertPair: tlsCertPath && tlsKeyPath ? { crt: readFileSync(tlsCertPath), key: readFileSync(tlsKeyPath) } : undefined,
    serverRootCACertificate: tlsCaPath ? readFileSync(tlsCaPath) : undefined,
    serverNameOverride: tlsServerName,
  };
}

export async function connectTemporal(settings = config.temporal, dataDir = config.dataDir): Promise<TemporalConnection> {
  const { namespace, taskQueue } = settings;
  const devServer = settings.address
    ? undefined
    : await startDevServer({ dataDir, port: settings.devPort, uiPort: settings.uiPort, namespaces: [namespace] });
  const connectionOptions: TemporalConnectionOptions = devServer
    ? { address: devServer.address }
    : // With an API key and no TLS settings the SDK turns TLS on by itself.
      { address: settings.address!, tls: tlsOptions(settings), apiKey: settings.apiKey };
  let connection: Connection;
  try {
    connection = await Connection.connect(connectionOptions);
  } catch (error) {
    await devServer?.stop();
    throw new Error(`cannot reach Temporal at ${connectionOptions.address}: ${(error as Error).message}`, { cause: error });
  }
  return {
    client: new Client({ connection, namespace }),
    namespace,
    address: connectionOptions.address,
    taskQueue,
    uiUrl: devServer?.uiUrl,
    connectionOptions,
    failure: devServer?.failure ?? new Promise<never>(() => undefined),
    async stop() {
      await connection.close();
      await devServer?.stop();
    },
  };
}
