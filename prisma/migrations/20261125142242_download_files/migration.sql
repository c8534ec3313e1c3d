-- CreateTable
CREATE TABLE "DownloadFile" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "productId" UUID NOT NULL,
    "variantId" UUID,
    "fileName" TEXT NOT NULL,
    "mimeType" TEXT,
    "size" BIGINT NOT NULL,
    "sha256" TEXT NOT NULL,
    "storageKey" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DownloadFile_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "DownloadFile_productId_variantId_createdAt_idx" ON "DownloadFile"("productId", "variantId", "createdAt" DESC);

-- AddForeignKey
ALTER TABLE "DownloadFile" ADD CONSTRAINT "DownloadFile_productId_fkey" FOREIGN KEY ("productId") REFERENCES "Product"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
