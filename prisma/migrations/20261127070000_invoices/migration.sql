-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN     "invoiceAddress" TEXT,
ADD COLUMN     "invoiceLegalName" TEXT,
ADD COLUMN     "invoicePrefix" TEXT,
ADD COLUMN     "invoiceTaxId" TEXT;

-- CreateTable
CREATE TABLE "Invoice" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "number" TEXT NOT NULL,
    "paymentId" UUID NOT NULL,
    "orderId" UUID NOT NULL,
    "refundId" UUID,
    "correctsId" UUID,
    "userId" UUID,
    "buyerEmail" TEXT,
    "currency" TEXT NOT NULL,
    "total" INTEGER NOT NULL,
    "tax" INTEGER NOT NULL,
    "issuedAt" TIMESTAMPTZ(3) NOT NULL,
    "content" JSONB NOT NULL,
    "html" TEXT NOT NULL,
    "pdf" BYTEA NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Invoice_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "InvoiceCounter" (
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "kind" TEXT NOT NULL,
    "last" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "InvoiceCounter_pkey" PRIMARY KEY ("workspaceId","livemode","kind")
);

-- CreateTable
CREATE TABLE "InvoiceWithheld" (
    "paymentId" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "reason" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "InvoiceWithheld_pkey" PRIMARY KEY ("paymentId")
);

-- CreateIndex
CREATE UNIQUE INDEX "Invoice_key_key" ON "Invoice"("key");

-- CreateIndex
CREATE INDEX "Invoice_workspaceId_livemode_issuedAt_idx" ON "Invoice"("workspaceId", "livemode", "issuedAt" DESC);

-- CreateIndex
CREATE INDEX "Invoice_paymentId_idx" ON "Invoice"("paymentId");

-- CreateIndex
CREATE INDEX "Invoice_refundId_idx" ON "Invoice"("refundId");

-- CreateIndex
CREATE INDEX "Invoice_userId_idx" ON "Invoice"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "Invoice_workspaceId_livemode_kind_sequence_key" ON "Invoice"("workspaceId", "livemode", "kind", "sequence");
