-- AlterTable
ALTER TABLE "WebhookAttempt" ADD COLUMN     "blockReason" TEXT;
