-- AlterTable
ALTER TABLE "Subscription" ADD COLUMN     "credit" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "items" JSONB;
