-- CreateTable
CREATE TABLE "SubscriptionCommand" (
    "id" TEXT NOT NULL,
    "subscriptionId" UUID NOT NULL,
    "type" TEXT NOT NULL,
    "refusal" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SubscriptionCommand_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "SubscriptionCommand_subscriptionId_idx" ON "SubscriptionCommand"("subscriptionId");

-- AddForeignKey
ALTER TABLE "SubscriptionCommand" ADD CONSTRAINT "SubscriptionCommand_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "Subscription"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
