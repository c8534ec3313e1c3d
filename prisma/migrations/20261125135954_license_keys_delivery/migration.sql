/*
  Warnings:

  - The values [reserved] on the enum `LicenseKeyStatus` will be removed. If these variants are still used in the database, this will fail.
  - You are about to drop the column `key` on the `LicenseKey` table. All the data in the column will be lost.
  - You are about to drop the column `offerId` on the `LicenseKey` table. All the data in the column will be lost.
  - A unique constraint covering the columns `[productId,fingerprint]` on the table `LicenseKey` will be added. If there are existing duplicate values, this will fail.
  - Added the required column `fingerprint` to the `LicenseKey` table without a default value. This is not possible if the table is not empty.
  - Added the required column `livemode` to the `LicenseKey` table without a default value. This is not possible if the table is not empty.
  - Added the required column `productId` to the `LicenseKey` table without a default value. This is not possible if the table is not empty.
  - Added the required column `sealed` to the `LicenseKey` table without a default value. This is not possible if the table is not empty.
  - Added the required column `workspaceId` to the `LicenseKey` table without a default value. This is not possible if the table is not empty.

*/
-- AlterEnum
BEGIN;
CREATE TYPE "LicenseKeyStatus_new" AS ENUM ('available', 'sold', 'revoked');
ALTER TABLE "public"."LicenseKey" ALTER COLUMN "status" DROP DEFAULT;
ALTER TABLE "LicenseKey" ALTER COLUMN "status" TYPE "LicenseKeyStatus_new" USING ("status"::text::"LicenseKeyStatus_new");
ALTER TYPE "LicenseKeyStatus" RENAME TO "LicenseKeyStatus_old";
ALTER TYPE "LicenseKeyStatus_new" RENAME TO "LicenseKeyStatus";
DROP TYPE "public"."LicenseKeyStatus_old";
ALTER TABLE "LicenseKey" ALTER COLUMN "status" SET DEFAULT 'available';
COMMIT;

-- DropForeignKey
ALTER TABLE "LicenseKey" DROP CONSTRAINT "LicenseKey_offerId_fkey";

-- DropIndex
DROP INDEX "LicenseKey_offerId_status_idx";

-- AlterTable
ALTER TABLE "LicenseKey" DROP COLUMN "key",
DROP COLUMN "offerId",
ADD COLUMN     "fingerprint" BYTEA NOT NULL,
ADD COLUMN     "livemode" BOOLEAN NOT NULL,
ADD COLUMN     "productId" UUID NOT NULL,
ADD COLUMN     "revokedAt" TIMESTAMPTZ(3),
ADD COLUMN     "sealed" BYTEA NOT NULL,
ADD COLUMN     "soldAt" TIMESTAMPTZ(3),
ADD COLUMN     "unit" INTEGER,
ADD COLUMN     "variantId" UUID,
ADD COLUMN     "workspaceId" UUID NOT NULL;

-- CreateIndex
CREATE INDEX "LicenseKey_productId_variantId_status_id_idx" ON "LicenseKey"("productId", "variantId", "status", "id");

-- CreateIndex
CREATE INDEX "LicenseKey_orderItemId_idx" ON "LicenseKey"("orderItemId");

-- CreateIndex
CREATE UNIQUE INDEX "LicenseKey_productId_fingerprint_key" ON "LicenseKey"("productId", "fingerprint");

-- AddForeignKey
ALTER TABLE "LicenseKey" ADD CONSTRAINT "LicenseKey_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LicenseKey" ADD CONSTRAINT "LicenseKey_orderItemId_fkey" FOREIGN KEY ("orderItemId") REFERENCES "OrderItem"("id") ON DELETE SET NULL ON UPDATE CASCADE;
