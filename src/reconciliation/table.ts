// A run as the admin CLI prints it: a line of counts, then one row per finding (both sides'
// amount and status side by side), columns padded to their widest cell.
import type { ReconciliationReport } from './service.js';

const cell = (value: unknown) => (value === null || value === undefined ? '-' : String(value));

export function reportTable(report: ReconciliationReport): string {
  const repaired = report.findings.filter((f) => f.outcome === 'repaired').length;
  const head = `${report.processor}: ${report.chargesChecked} charges and ${report.refundsChecked} refunds from ${report.since.toISOString()} to ${report.until.toISOString()}; ${repaired} repaired, ${report.findings.length - repaired} reported${report.runId ? ` (run ${report.runId})` : ' (dry run)'}`;
  if (report.findings.length === 0) return `${head}\n`;
  const rows = [
    ['OUTCOME', 'KIND', 'PROCESSOR ID', 'WORKSPACE', 'PAYMENT', 'OURS', 'THEIRS', 'NOTE'],
    ...report.findings.map((f) => [
      f.outcome,
      f.kind,
      f.processorObjectId,
      cell(f.workspaceId),
      cell(f.paymentId),
      f.ours ? [f.ours.amount, f.ours.currency, f.ours.chargeStatus ?? f.ours.status, f.ours.paymentStatus && `payment ${String(f.ours.paymentStatus)}`].filter(Boolean).join(' ') : '-',
      f.theirs ? `${cell(f.theirs.amount)} ${cell(f.theirs.currency)} ${cell(f.theirs.status)}` : '-',
      f.note,
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return `${head}\n${rows.map((row) => row.map((value, column) => (column === row.length - 1 ? value : value.padEnd(widths[column]!))).join('  ')).join('\n')}\n`;
}
