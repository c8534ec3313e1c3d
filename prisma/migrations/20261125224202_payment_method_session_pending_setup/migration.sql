-- AlterTable
ALTER TABLE "PaymentMethodSession" ADD COLUMN     "pendingSetupId" TEXT;
