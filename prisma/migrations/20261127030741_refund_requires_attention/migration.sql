-- AlterEnum
ALTER TYPE "RefundStatus" ADD VALUE 'requires_attention';
