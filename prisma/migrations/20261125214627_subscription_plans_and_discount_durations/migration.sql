-- CreateEnum
CREATE TYPE "DiscountDuration" AS ENUM ('once', 'repeating', 'forever');

-- AlterTable
ALTER TABLE "Discount" ADD COLUMN     "duration" "DiscountDuration" NOT NULL DEFAULT 'once',
ADD COLUMN     "durationInMonths" INTEGER;

-- AlterTable
ALTER TABLE "Subscription" ADD COLUMN     "credit" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "discountEndsAt" TIMESTAMPTZ(3),
ADD COLUMN     "items" JSONB;
