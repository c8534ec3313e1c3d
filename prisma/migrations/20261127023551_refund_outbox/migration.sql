-- AlterTable
ALTER TABLE "Refund" ADD COLUMN     "outboxCheckedAt" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "Refund_status_createdAt_idx" ON "Refund"("status", "createdAt");
