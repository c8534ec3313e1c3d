-- AlterEnum
ALTER TYPE "RefundStatus" ADD VALUE 'partially_failed';
