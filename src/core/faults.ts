// Test-only fault injection: FAULT_INJECTION lists points (comma-separated) where the process
// kills itself with SIGKILL, so that a test can make a crash land exactly between two steps, e.g.
// a refund committed and its workflow not started yet, or a subscription's request committed and its
// workflow task not completed. Refused in production.

/** The points the code offers. */
export type FaultPoint = 'refund-before-workflow-start' | 'subscription-command-applied';

function parseFaults(env: NodeJS.ProcessEnv): ReadonlySet<string> {
  const points = new Set((env.FAULT_INJECTION ?? '').split(',').map((p) => p.trim()).filter(Boolean));
  if (points.size > 0 && env.NODE_ENV === 'production') throw new Error('FAULT_INJECTION is for tests: unset it in production');
  return points;
}

const FAULTS = parseFaults(process.env);

/** Dies here (SIGKILL, as a machine failure would) when FAULT_INJECTION names the point. */
export function crashPoint(point: FaultPoint): void {
  if (FAULTS.has(point)) process.kill(process.pid, 'SIGKILL');
}
