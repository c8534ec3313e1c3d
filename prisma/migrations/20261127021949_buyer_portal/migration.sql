-- AlterTable
ALTER TABLE "Workspace" ADD COLUMN     "accentColor" TEXT,
ADD COLUMN     "brandColor" TEXT,
ADD COLUMN     "portalPauseEnabled" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "portalSwitchOfferIds" TEXT;

-- CreateTable
CREATE TABLE "PortalSession" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "userId" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "endedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PortalSession_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PortalSignInLink" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "userId" UUID NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "next" TEXT,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "usedAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PortalSignInLink_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "PortalSession_tokenHash_key" ON "PortalSession"("tokenHash");

-- CreateIndex
CREATE INDEX "PortalSession_userId_idx" ON "PortalSession"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "PortalSignInLink_tokenHash_key" ON "PortalSignInLink"("tokenHash");

-- CreateIndex
CREATE INDEX "PortalSignInLink_userId_idx" ON "PortalSignInLink"("userId");
