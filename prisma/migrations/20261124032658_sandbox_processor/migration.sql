-- CreateTable
CREATE TABLE "SandboxAccount" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "webhookSecret" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SandboxAccount_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SandboxPaymentMethod" (
    "id" TEXT NOT NULL,
    "brand" TEXT NOT NULL,
    "last4" TEXT NOT NULL,
    "expMonth" INTEGER NOT NULL,
    "expYear" INTEGER NOT NULL,
    "behaviour" TEXT NOT NULL,
    "reusable" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SandboxPaymentMethod_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SandboxCharge" (
    "id" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "paymentId" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "method" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "failureCode" TEXT,
    "failureMessage" TEXT,
    "paymentMethodId" TEXT,
    "behaviour" TEXT,
    "email" TEXT NOT NULL,
    "metadata" JSONB NOT NULL,
    "amountRefunded" INTEGER NOT NULL DEFAULT 0,
    "disputeId" TEXT,
    "disputeStatus" TEXT,
    "disputeReason" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "SandboxCharge_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SandboxRefund" (
    "id" TEXT NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "chargeId" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "status" TEXT NOT NULL,
    "failureCode" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SandboxRefund_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "SandboxEvent" (
    "id" TEXT NOT NULL,
    "sequence" BIGSERIAL NOT NULL,
    "chargeId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "acknowledgedAt" TIMESTAMPTZ(3),

    CONSTRAINT "SandboxEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "SandboxCharge_idempotencyKey_key" ON "SandboxCharge"("idempotencyKey");

-- CreateIndex
CREATE INDEX "SandboxCharge_paymentId_idx" ON "SandboxCharge"("paymentId");

-- CreateIndex
CREATE UNIQUE INDEX "SandboxRefund_idempotencyKey_key" ON "SandboxRefund"("idempotencyKey");

-- CreateIndex
CREATE INDEX "SandboxRefund_chargeId_idx" ON "SandboxRefund"("chargeId");

-- CreateIndex
CREATE UNIQUE INDEX "SandboxEvent_sequence_key" ON "SandboxEvent"("sequence");

-- CreateIndex
CREATE INDEX "SandboxEvent_acknowledgedAt_sequence_idx" ON "SandboxEvent"("acknowledgedAt", "sequence");

-- AddForeignKey
ALTER TABLE "SandboxCharge" ADD CONSTRAINT "SandboxCharge_paymentMethodId_fkey" FOREIGN KEY ("paymentMethodId") REFERENCES "SandboxPaymentMethod"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SandboxRefund" ADD CONSTRAINT "SandboxRefund_chargeId_fkey" FOREIGN KEY ("chargeId") REFERENCES "SandboxCharge"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
