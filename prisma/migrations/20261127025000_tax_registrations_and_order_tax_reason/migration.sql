-- AlterTable
ALTER TABLE "Order" ADD COLUMN     "taxId" TEXT,
ADD COLUMN     "taxReason" TEXT;

-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN     "noTaxData" TEXT NOT NULL DEFAULT 'sell_without_tax',
ADD COLUMN     "taxRegistrations" TEXT NOT NULL DEFAULT 'everywhere';
