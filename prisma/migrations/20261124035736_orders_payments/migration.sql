-- Orders, payments, charges and subscriptions (issue 8). Written by `migrate dev`, then edited:
-- Order.status changes type in place (text to the OrderStatus enum) instead of being dropped and
-- re-added, so existing orders keep their status.
-- CreateEnum
CREATE TYPE "OrderStatus" AS ENUM ('PENDING', 'PAID', 'FAILED', 'CANCELLED', 'EXPIRED', 'REFUNDED', 'PARTIALLY_REFUNDED');

-- CreateEnum
CREATE TYPE "OrderType" AS ENUM ('ONE_TIME', 'SUBSCRIPTION', 'FREE');

-- CreateEnum
CREATE TYPE "PaymentStatus" AS ENUM ('PENDING', 'PAID', 'FAILED', 'CANCELLED', 'EXPIRED', 'REFUNDED', 'PARTIALLY_REFUNDED', 'UNPAID');

-- CreateEnum
CREATE TYPE "PaymentProcessor" AS ENUM ('sandbox', 'stripe');

-- CreateEnum
CREATE TYPE "PaymentMethodType" AS ENUM ('card', 'paypal', 'manual');

-- CreateEnum
CREATE TYPE "ChargeStatus" AS ENUM ('pending', 'succeeded', 'failed', 'cancelled');

-- CreateEnum
CREATE TYPE "SubscriptionStatus" AS ENUM ('incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'unpaid', 'paused', 'cancelled');

-- DropIndex
DROP INDEX "Order_userId_idx";

-- AlterTable
ALTER TABLE "Order" ADD COLUMN     "cancelledAt" TIMESTAMPTZ(3),
ADD COLUMN     "discountAmount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "discountId" UUID,
ADD COLUMN     "disputed" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "itemCustomFields" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "lastPaymentId" UUID,
ADD COLUMN     "paidAt" TIMESTAMPTZ(3),
ADD COLUMN     "subscriptionId" UUID,
ADD COLUMN     "totalItems" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "type" "OrderType" NOT NULL DEFAULT 'ONE_TIME',
ALTER COLUMN "status" DROP DEFAULT,
ALTER COLUMN "status" TYPE "OrderStatus" USING ("status"::"OrderStatus"),
ALTER COLUMN "status" SET DEFAULT 'PENDING';

-- AlterTable
ALTER TABLE "OrderItem" ADD COLUMN     "discount" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "position" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "tax" INTEGER NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "Payment" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "orderId" UUID NOT NULL,
    "sequence" INTEGER NOT NULL,
    "number" TEXT NOT NULL,
    "status" "PaymentStatus" NOT NULL DEFAULT 'PENDING',
    "amount" INTEGER NOT NULL,
    "tax" INTEGER NOT NULL DEFAULT 0,
    "fee" INTEGER NOT NULL DEFAULT 0,
    "currency" TEXT NOT NULL,
    "processor" "PaymentProcessor",
    "methodType" "PaymentMethodType",
    "processorChargeId" TEXT,
    "failureCode" TEXT,
    "failureMessage" TEXT,
    "refundedAmount" INTEGER NOT NULL DEFAULT 0,
    "disputed" BOOLEAN NOT NULL DEFAULT false,
    "planChange" BOOLEAN NOT NULL DEFAULT false,
    "cancelRequestedAt" TIMESTAMPTZ(3),
    "expiresAt" TIMESTAMPTZ(3),
    "paidAt" TIMESTAMPTZ(3),
    "userId" UUID,
    "subscriptionId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Payment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Charge" (
    "id" UUID NOT NULL,
    "paymentId" UUID NOT NULL,
    "attempt" INTEGER NOT NULL,
    "processor" "PaymentProcessor" NOT NULL,
    "processorChargeId" TEXT,
    "status" "ChargeStatus" NOT NULL DEFAULT 'pending',
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "failureCode" TEXT,
    "failureMessage" TEXT,
    "cardBrand" TEXT,
    "cardLast4" TEXT,
    "disputeStatus" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Charge_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Subscription" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "number" TEXT NOT NULL,
    "status" "SubscriptionStatus" NOT NULL DEFAULT 'incomplete',
    "userId" UUID,
    "currency" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "recurringInterval" "RecurringInterval" NOT NULL,
    "recurringIntervalCount" INTEGER NOT NULL DEFAULT 1,
    "trialInterval" "RecurringInterval",
    "trialIntervalCount" INTEGER,
    "processor" "PaymentProcessor",
    "methodType" "PaymentMethodType",
    "paymentMethodRef" TEXT,
    "currentPeriodStart" TIMESTAMPTZ(3),
    "currentPeriodEnd" TIMESTAMPTZ(3),
    "trialEndsAt" TIMESTAMPTZ(3),
    "cancelAtPeriodEnd" BOOLEAN NOT NULL DEFAULT false,
    "cancelledAt" TIMESTAMPTZ(3),
    "endedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Subscription_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Payment_workspaceId_livemode_createdAt_idx" ON "Payment"("workspaceId", "livemode", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Payment_workspaceId_livemode_status_createdAt_idx" ON "Payment"("workspaceId", "livemode", "status", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Payment_workspaceId_livemode_amount_idx" ON "Payment"("workspaceId", "livemode", "amount");

-- CreateIndex
CREATE INDEX "Payment_userId_createdAt_idx" ON "Payment"("userId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Payment_subscriptionId_idx" ON "Payment"("subscriptionId");

-- CreateIndex
CREATE INDEX "Payment_processor_processorChargeId_idx" ON "Payment"("processor", "processorChargeId");

-- CreateIndex
CREATE UNIQUE INDEX "Payment_workspaceId_livemode_number_key" ON "Payment"("workspaceId", "livemode", "number");

-- CreateIndex
CREATE UNIQUE INDEX "Payment_orderId_sequence_key" ON "Payment"("orderId", "sequence");

-- CreateIndex
CREATE UNIQUE INDEX "Charge_paymentId_attempt_key" ON "Charge"("paymentId", "attempt");

-- CreateIndex
CREATE UNIQUE INDEX "Charge_processor_processorChargeId_key" ON "Charge"("processor", "processorChargeId");

-- CreateIndex
CREATE INDEX "Subscription_workspaceId_livemode_createdAt_idx" ON "Subscription"("workspaceId", "livemode", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Subscription_userId_idx" ON "Subscription"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "Subscription_workspaceId_livemode_number_key" ON "Subscription"("workspaceId", "livemode", "number");

-- CreateIndex
CREATE UNIQUE INDEX "Order_lastPaymentId_key" ON "Order"("lastPaymentId");

-- CreateIndex
CREATE INDEX "Order_workspaceId_livemode_status_createdAt_idx" ON "Order"("workspaceId", "livemode", "status", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Order_workspaceId_livemode_type_createdAt_idx" ON "Order"("workspaceId", "livemode", "type", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Order_workspaceId_livemode_currency_createdAt_idx" ON "Order"("workspaceId", "livemode", "currency", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Order_workspaceId_livemode_country_createdAt_idx" ON "Order"("workspaceId", "livemode", "country", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Order_workspaceId_livemode_disputed_createdAt_idx" ON "Order"("workspaceId", "livemode", "disputed", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Order_workspaceId_livemode_value_idx" ON "Order"("workspaceId", "livemode", "value");

-- CreateIndex
CREATE INDEX "Order_userId_createdAt_idx" ON "Order"("userId", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Order_checkoutId_idx" ON "Order"("checkoutId");

-- CreateIndex
CREATE INDEX "Order_subscriptionId_idx" ON "Order"("subscriptionId");

-- CreateIndex
CREATE INDEX "Order_itemCustomFields_idx" ON "Order" USING GIN ("itemCustomFields" jsonb_path_ops);

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "Subscription"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_lastPaymentId_fkey" FOREIGN KEY ("lastPaymentId") REFERENCES "Payment"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Payment" ADD CONSTRAINT "Payment_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Payment" ADD CONSTRAINT "Payment_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Payment" ADD CONSTRAINT "Payment_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "Subscription"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Charge" ADD CONSTRAINT "Charge_paymentId_fkey" FOREIGN KEY ("paymentId") REFERENCES "Payment"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Subscription" ADD CONSTRAINT "Subscription_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
