// One S3 download path of bench/storage-paths.ts behind a bare node:http server, so that the paths
// differ only in how the bytes leave the bucket. BENCH_MODE: `hand-written` (the pre-issue-37
// socket reader, bench/hand-written-s3-reader.ts), `sdk` (the service's driver: the SDK's
// GetObject stream) or `redirect` (the service's driver: a 302 to a GetObject URL presigned for
// 60 s). Serves BENCH_KEY of the S3_* bucket at `/`, with one `bytes=N-` Range (a resumed download).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline, type Readable } from 'node:stream';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ReusedBufferBody } from '../src/delivery/reused-buffer-body.js';
import { s3Storage } from '../src/delivery/s3-storage.js';
import { getOverSocket } from './hand-written-s3-reader.js';

const mode = process.env.BENCH_MODE;
const key = process.env.BENCH_KEY!;
const size = Number(process.env.BENCH_SIZE);
const settings = {
  bucket: process.env.S3_BUCKET!,
  region: process.env.S3_REGION!,
  endpoint: process.env.S3_ENDPOINT!,
  credentials: { accessKeyId: process.env.S3_ACCESS_KEY_ID!, secretAccessKey: process.env.S3_SECRET_ACCESS_KEY! },
  forcePathStyle: true,
  keyPrefix: '',
  redirectSeconds: mode === 'redirect' ? 60 : 0,
};
const driver = s3Storage(settings, 1_073_741_824);
const signer = new S3Client({ region: settings.region, endpoint: settings.endpoint, forcePathStyle: true, credentials: settings.credentials });

/** The hand-written path: the SDK signs, our socket reader fetches. */
async function handWritten(range: { start: number; end: number } | undefined): Promise<Readable> {
  const header = range ? `bytes=${range.start}-${range.end}` : undefined;
  const url = await getSignedUrl(signer, new GetObjectCommand({ Bucket: settings.bucket, Key: key, Range: header }), { expiresIn: 60 });
  const answer = await getOverSocket(new URL(url), header ? { range: header } : {}, 30_000);
  if (answer.status !== (range ? 206 : 200)) throw new Error(`GetObject answered ${answer.status}`);
  return new ReusedBufferBody(answer.body);
}

const server = http.createServer((request, response) => {
  void (async () => {
    if (mode === 'redirect') {
      response.writeHead(302, { location: await driver.redirectUrl!(key, { fileName: 'bench.zip', contentType: 'application/zip' }) }).end();
      return;
    }
    const from = /^bytes=(\d+)-$/.exec(request.headers.range ?? '')?.[1];
    const range = from === undefined ? undefined : { start: Number(from), end: size - 1 };
    const body = mode === 'sdk' ? await driver.read(key, range) : await handWritten(range);
    response.writeHead(range ? 206 : 200, { 'content-type': 'application/zip', 'content-length': size - (range?.start ?? 0) });
    // As the service does: a storage failing mid-file cuts the connection (the client sees a short body).
    pipeline(body, response, (error) => error && request.socket.destroy());
  })().catch((error: Error) => {
    if (!response.headersSent) response.writeHead(503).end(error.message);
    else request.socket.destroy();
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
