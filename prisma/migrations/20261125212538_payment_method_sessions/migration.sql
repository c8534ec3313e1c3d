-- CreateTable
CREATE TABLE "PaymentMethodSession" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "subscriptionId" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PaymentMethodSession_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "PaymentMethodSession_tokenHash_key" ON "PaymentMethodSession"("tokenHash");

-- CreateIndex
CREATE INDEX "PaymentMethodSession_subscriptionId_idx" ON "PaymentMethodSession"("subscriptionId");
