-- CreateEnum
CREATE TYPE "KeyMode" AS ENUM ('live', 'test');

-- CreateEnum
CREATE TYPE "ProductType" AS ENUM ('DigitalDownload', 'Game', 'GiftCard', 'SoftwareKey', 'VirtualCurrency', 'VirtualItem', 'Subscription', 'OneTimePayment');

-- CreateEnum
CREATE TYPE "ProductStatus" AS ENUM ('DRAFT', 'ACTIVE', 'INACTIVE');

-- CreateEnum
CREATE TYPE "OfferStatus" AS ENUM ('DRAFT', 'ACTIVE', 'INACTIVE');

-- CreateEnum
CREATE TYPE "RecurringInterval" AS ENUM ('day', 'week', 'month', 'year');

-- CreateEnum
CREATE TYPE "LicenseKeyStatus" AS ENUM ('available', 'reserved', 'sold');

-- CreateEnum
CREATE TYPE "DiscountType" AS ENUM ('code', 'sale');

-- CreateEnum
CREATE TYPE "DiscountAmountType" AS ENUM ('fixed', 'percentage');

-- CreateEnum
CREATE TYPE "DiscountStatus" AS ENUM ('active', 'inactive');

-- CreateEnum
CREATE TYPE "CheckoutElementStatus" AS ENUM ('ACTIVE', 'INACTIVE');

-- CreateTable
CREATE TABLE "Workspace" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "testMode" BOOLEAN NOT NULL DEFAULT false,
    "offline" BOOLEAN NOT NULL DEFAULT false,
    "productLimit" INTEGER NOT NULL DEFAULT 1000,
    "portalEnabled" BOOLEAN NOT NULL DEFAULT true,
    "refundsEnabled" BOOLEAN NOT NULL DEFAULT true,
    "embeddedPaymentMethodUpdate" BOOLEAN NOT NULL DEFAULT false,
    "customSubscriptionManagementUrl" TEXT,
    "contactEmail" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Workspace_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Project" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Project_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiKey" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "mode" "KeyMode" NOT NULL,
    "publicKey" TEXT NOT NULL,
    "secretKeyHash" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMPTZ(3),

    CONSTRAINT "ApiKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Product" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "projectId" UUID NOT NULL,
    "type" "ProductType" NOT NULL,
    "slug" TEXT NOT NULL,
    "internalId" TEXT,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "developer" TEXT,
    "publisher" TEXT,
    "pegiRating" TEXT NOT NULL DEFAULT 'NONE',
    "releaseDate" TEXT,
    "systems" TEXT[],
    "genres" TEXT[],
    "tags" TEXT[],
    "media" JSONB NOT NULL DEFAULT '[]',
    "status" "ProductStatus" NOT NULL DEFAULT 'DRAFT',
    "customFields" JSONB,
    "lowestPrice" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "archivedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Product_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Variant" (
    "id" UUID NOT NULL,
    "productId" UUID NOT NULL,
    "internalId" TEXT,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "order" INTEGER,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "archivedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Variant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Offer" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "productId" UUID NOT NULL,
    "variantId" UUID,
    "internalId" TEXT,
    "name" TEXT,
    "description" TEXT,
    "price" INTEGER NOT NULL,
    "originalPrice" INTEGER,
    "currency" TEXT NOT NULL,
    "recurringInterval" "RecurringInterval",
    "recurringIntervalCount" INTEGER,
    "trialInterval" "RecurringInterval",
    "trialIntervalCount" INTEGER,
    "limit" INTEGER,
    "soldItems" INTEGER NOT NULL DEFAULT 0,
    "status" "OfferStatus" NOT NULL DEFAULT 'ACTIVE',
    "region" TEXT NOT NULL DEFAULT 'WORLDWIDE',
    "platform" TEXT NOT NULL DEFAULT 'OTHER',
    "gtin" TEXT,
    "warningMessage" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "archivedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Offer_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LicenseKey" (
    "id" UUID NOT NULL,
    "offerId" UUID NOT NULL,
    "key" TEXT NOT NULL,
    "status" "LicenseKeyStatus" NOT NULL DEFAULT 'available',
    "orderItemId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LicenseKey_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Discount" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "type" "DiscountType" NOT NULL,
    "name" TEXT,
    "amount" DECIMAL(18,4) NOT NULL,
    "amountType" "DiscountAmountType" NOT NULL,
    "discountCode" TEXT,
    "validFrom" BIGINT,
    "validUntil" BIGINT,
    "timezone" TEXT NOT NULL DEFAULT 'UTC',
    "purchaseLimit" INTEGER,
    "timesUsed" INTEGER NOT NULL DEFAULT 0,
    "status" "DiscountStatus" NOT NULL DEFAULT 'active',
    "currency" TEXT NOT NULL,
    "includedOfferIds" UUID[],
    "excludedOfferIds" UUID[],
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "archivedAt" TIMESTAMPTZ(3),

    CONSTRAINT "Discount_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "User" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "email" TEXT NOT NULL,
    "emailNormalized" TEXT NOT NULL,
    "username" TEXT,
    "internalId" TEXT,
    "details" JSONB,
    "billingDetails" JSONB,
    "passwordHash" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "archivedAt" TIMESTAMPTZ(3),

    CONSTRAINT "User_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CheckoutElement" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "name" TEXT,
    "status" "CheckoutElementStatus" NOT NULL DEFAULT 'ACTIVE',
    "subscriptionOffer" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,
    "archivedAt" TIMESTAMPTZ(3),

    CONSTRAINT "CheckoutElement_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CheckoutElementOffer" (
    "checkoutElementId" UUID NOT NULL,
    "offerId" UUID NOT NULL,
    "position" INTEGER NOT NULL,

    CONSTRAINT "CheckoutElementOffer_pkey" PRIMARY KEY ("checkoutElementId","offerId")
);

-- CreateTable
CREATE TABLE "Order" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "number" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "userId" UUID,
    "currency" TEXT NOT NULL,
    "value" INTEGER NOT NULL DEFAULT 0,
    "tax" INTEGER NOT NULL DEFAULT 0,
    "fee" INTEGER NOT NULL DEFAULT 0,
    "country" TEXT,
    "checkoutId" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "Order_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "OrderItem" (
    "id" UUID NOT NULL,
    "orderId" UUID NOT NULL,
    "productId" UUID NOT NULL,
    "offerId" UUID NOT NULL,
    "variantId" UUID,
    "quantity" INTEGER NOT NULL DEFAULT 1,
    "unitPrice" INTEGER NOT NULL,
    "customFields" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "OrderItem_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Project_workspaceId_idx" ON "Project"("workspaceId");

-- CreateIndex
CREATE UNIQUE INDEX "ApiKey_publicKey_key" ON "ApiKey"("publicKey");

-- CreateIndex
CREATE INDEX "ApiKey_workspaceId_idx" ON "ApiKey"("workspaceId");

-- CreateIndex
CREATE INDEX "Product_workspaceId_livemode_createdAt_idx" ON "Product"("workspaceId", "livemode", "createdAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "Product_workspaceId_livemode_slug_key" ON "Product"("workspaceId", "livemode", "slug");

-- CreateIndex
CREATE INDEX "Variant_productId_idx" ON "Variant"("productId");

-- CreateIndex
CREATE INDEX "Offer_workspaceId_livemode_createdAt_idx" ON "Offer"("workspaceId", "livemode", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Offer_productId_idx" ON "Offer"("productId");

-- CreateIndex
CREATE INDEX "LicenseKey_offerId_status_idx" ON "LicenseKey"("offerId", "status");

-- CreateIndex
CREATE INDEX "Discount_workspaceId_livemode_createdAt_idx" ON "Discount"("workspaceId", "livemode", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "User_workspaceId_livemode_createdAt_idx" ON "User"("workspaceId", "livemode", "createdAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "User_workspaceId_livemode_emailNormalized_key" ON "User"("workspaceId", "livemode", "emailNormalized");

-- CreateIndex
CREATE INDEX "CheckoutElement_workspaceId_livemode_createdAt_idx" ON "CheckoutElement"("workspaceId", "livemode", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Order_workspaceId_livemode_createdAt_idx" ON "Order"("workspaceId", "livemode", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Order_userId_idx" ON "Order"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "Order_workspaceId_livemode_number_key" ON "Order"("workspaceId", "livemode", "number");

-- CreateIndex
CREATE INDEX "OrderItem_orderId_idx" ON "OrderItem"("orderId");

-- AddForeignKey
ALTER TABLE "Project" ADD CONSTRAINT "Project_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Product" ADD CONSTRAINT "Product_projectId_fkey" FOREIGN KEY ("projectId") REFERENCES "Project"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Variant" ADD CONSTRAINT "Variant_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Offer" ADD CONSTRAINT "Offer_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Offer" ADD CONSTRAINT "Offer_variantId_fkey" FOREIGN KEY ("variantId") REFERENCES "Variant"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "LicenseKey" ADD CONSTRAINT "LicenseKey_offerId_fkey" FOREIGN KEY ("offerId") REFERENCES "Offer"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CheckoutElementOffer" ADD CONSTRAINT "CheckoutElementOffer_checkoutElementId_fkey" FOREIGN KEY ("checkoutElementId") REFERENCES "CheckoutElement"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "CheckoutElementOffer" ADD CONSTRAINT "CheckoutElementOffer_offerId_fkey" FOREIGN KEY ("offerId") REFERENCES "Offer"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Order" ADD CONSTRAINT "Order_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "OrderItem" ADD CONSTRAINT "OrderItem_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order"("id") ON DELETE CASCADE ON UPDATE CASCADE;
