import { nodeFlags } from '../src/node-flags.js';

describe('V8 flags of the compiled entries', () => {
  test('an API-only server caps its old generation, by default at 192 MB, and its young generation', () => {
    expect(nodeFlags('main.js', { WORKER_IN_PROCESS: 'false' })).toEqual(['--liftoff-only', '--max-old-space-size=192', '--max-semi-space-size=8']);
    expect(nodeFlags('main.js', { WORKER_IN_PROCESS: 'false', API_HEAP_LIMIT_MB: '256' })).toContain('--max-old-space-size=256');
  });

  test('a process running a Temporal worker gets a larger cap, by default 512 MB (the SDK sizes its workflow cache from it)', () => {
    const worker = ['--liftoff-only', '--max-old-space-size=512', '--max-semi-space-size=8'];
    expect(nodeFlags('worker-main.js', { WORKER_IN_PROCESS: 'false' })).toEqual(worker);
    expect(nodeFlags('main.js', {})).toEqual(worker);
    expect(nodeFlags('worker-main.js', { API_HEAP_LIMIT_MB: '100' })).toEqual(worker);
    expect(nodeFlags('main.js', { WORKER_HEAP_LIMIT_MB: '768' })).toContain('--max-old-space-size=768');
  });

  test.each(['abc', '12.5', '-1', '63'])('a heap limit of %s is refused', (value) => {
    expect(() => nodeFlags('main.js', { WORKER_IN_PROCESS: 'false', API_HEAP_LIMIT_MB: value })).toThrow('API_HEAP_LIMIT_MB must be an integer of at least 64');
    expect(() => nodeFlags('worker-main.js', { WORKER_HEAP_LIMIT_MB: value })).toThrow('WORKER_HEAP_LIMIT_MB must be an integer of at least 64');
  });
});
