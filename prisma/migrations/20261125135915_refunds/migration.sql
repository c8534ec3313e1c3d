-- CreateEnum
CREATE TYPE "RefundStatus" AS ENUM ('pending', 'succeeded', 'failed', 'canceled');

-- AlterTable
ALTER TABLE "SandboxCharge" ADD COLUMN     "disputeCheckFails" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "Refund" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "orderId" UUID NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "status" "RefundStatus" NOT NULL DEFAULT 'pending',
    "reason" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "items" JSONB NOT NULL DEFAULT '[]',
    "idempotencyKey" TEXT,
    "fingerprint" TEXT NOT NULL,
    "workflowId" TEXT NOT NULL,
    "source" TEXT NOT NULL DEFAULT 'api',
    "feeRefunded" INTEGER NOT NULL DEFAULT 0,
    "failureCode" TEXT,
    "failureMessage" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "settlingSince" TIMESTAMPTZ(3),

    CONSTRAINT "Refund_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RefundPart" (
    "id" UUID NOT NULL,
    "refundId" UUID NOT NULL,
    "paymentId" UUID NOT NULL,
    "processor" "PaymentProcessor" NOT NULL,
    "processorChargeId" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "status" "RefundStatus" NOT NULL DEFAULT 'pending',
    "processorRefundId" TEXT,
    "feeRefunded" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "RefundPart_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Refund_orderId_fingerprint_createdAt_idx" ON "Refund"("orderId", "fingerprint", "createdAt");

-- CreateIndex
CREATE INDEX "Refund_workspaceId_livemode_status_settlingSince_idx" ON "Refund"("workspaceId", "livemode", "status", "settlingSince");

-- CreateIndex
CREATE UNIQUE INDEX "Refund_orderId_idempotencyKey_key" ON "Refund"("orderId", "idempotencyKey");

-- CreateIndex
CREATE INDEX "RefundPart_paymentId_idx" ON "RefundPart"("paymentId");

-- CreateIndex
CREATE UNIQUE INDEX "RefundPart_refundId_paymentId_key" ON "RefundPart"("refundId", "paymentId");

-- CreateIndex
CREATE UNIQUE INDEX "RefundPart_processor_processorRefundId_key" ON "RefundPart"("processor", "processorRefundId");

-- AddForeignKey
ALTER TABLE "Refund" ADD CONSTRAINT "Refund_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RefundPart" ADD CONSTRAINT "RefundPart_refundId_fkey" FOREIGN KEY ("refundId") REFERENCES "Refund"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "RefundPart" ADD CONSTRAINT "RefundPart_paymentId_fkey" FOREIGN KEY ("paymentId") REFERENCES "Payment"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
