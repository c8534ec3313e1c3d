-- AlterTable
ALTER TABLE "Order" ADD COLUMN     "reservedAt" TIMESTAMPTZ(3),
ADD COLUMN     "releasedAt" TIMESTAMPTZ(3);

-- CreateTable
CREATE TABLE "CheckoutIdempotencyKey" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "checkoutElementId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "requestHash" TEXT NOT NULL,
    "orderId" UUID,
    "paymentId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CheckoutIdempotencyKey_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "CheckoutIdempotencyKey_checkoutElementId_key_key" ON "CheckoutIdempotencyKey"("checkoutElementId", "key");

-- CreateIndex
CREATE INDEX "CheckoutIdempotencyKey_createdAt_idx" ON "CheckoutIdempotencyKey"("createdAt");
