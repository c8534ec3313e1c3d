-- AlterTable
ALTER TABLE "Payment" ADD COLUMN     "feeBasisPoints" INTEGER,
ADD COLUMN     "feeFixed" INTEGER;
