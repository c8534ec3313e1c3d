// The baseline for bench/downloads.ts: the file of BENCH_FILE served by a bare node:http server as a
// plain file stream (createReadStream into the response), with the headers a download needs.
import { createReadStream, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream';

const file = process.env.BENCH_FILE;
if (!file) throw new Error('BENCH_FILE: the file to serve');
const size = statSync(file).size;

const server = http.createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/zip', 'content-length': size, 'content-disposition': 'attachment; filename="bench.zip"', 'accept-ranges': 'bytes' });
  pipeline(createReadStream(file), response, () => undefined);
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
