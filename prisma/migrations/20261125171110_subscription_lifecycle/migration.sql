/*
  Warnings:

  - A unique constraint covering the columns `[subscriptionId,subscriptionPeriod]` on the table `Payment` will be added. If there are existing duplicate values, this will fail.

*/
-- AlterTable
ALTER TABLE "Payment" ADD COLUMN     "subscriptionPeriod" INTEGER;

-- AlterTable
ALTER TABLE "Subscription" ADD COLUMN     "billingAnchor" TIMESTAMPTZ(3),
ADD COLUMN     "clockOffsetMs" BIGINT NOT NULL DEFAULT 0,
ADD COLUMN     "nextRetryAt" TIMESTAMPTZ(3),
ADD COLUMN     "pausedAt" TIMESTAMPTZ(3);

-- CreateIndex
CREATE UNIQUE INDEX "Payment_subscriptionId_subscriptionPeriod_key" ON "Payment"("subscriptionId", "subscriptionPeriod");
