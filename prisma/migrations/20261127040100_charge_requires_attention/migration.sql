-- AlterEnum
ALTER TYPE "ChargeStatus" ADD VALUE 'requires_attention';
