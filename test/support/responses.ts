import pg from 'pg';

/** The error envelope, with any message. */
export const ERROR = { status: 'error', error: { message: expect.any(String) } };

export interface ErrorEnvelope {
  status: string;
  error: { message: string };
}

type Success<T> = Promise<{ data?: { data: T }; error?: unknown; response: Response }>;

/** The `data` of a 200 response from the typed client; any other status fails with the envelope in the message. */
export async function ok<T>(pending: Success<T>): Promise<T> {
  const { data, error, response } = await pending;
  if (response.status !== 200 || !data) throw new Error(`expected 200, got ${response.status}: ${JSON.stringify(error)}`);
  return data.data;
}

/** Status and error envelope of a request expected to fail. */
export async function failure(pending: Promise<{ error?: unknown; response: Response }>) {
  const { error, response } = await pending;
  return { status: response.status, body: error as ErrorEnvelope };
}

/** A client on the suite's database for this test file: stored state is read back beneath the API. */
export function useSuiteDatabase(): pg.Client {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  beforeAll(() => client.connect());
  afterAll(() => client.end());
  return client;
}
