-- CreateTable
CREATE TABLE "LicenseKeyActivation" (
    "id" UUID NOT NULL,
    "licenseKeyId" UUID NOT NULL,
    "instance" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LicenseKeyActivation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "LicenseKeyPolicy" (
    "offerId" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "activationLimit" INTEGER,
    "validForDays" INTEGER,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "LicenseKeyPolicy_pkey" PRIMARY KEY ("offerId")
);

-- CreateIndex
CREATE UNIQUE INDEX "LicenseKeyActivation_licenseKeyId_instance_key" ON "LicenseKeyActivation"("licenseKeyId", "instance");

-- AddForeignKey
ALTER TABLE "LicenseKeyActivation" ADD CONSTRAINT "LicenseKeyActivation_licenseKeyId_fkey" FOREIGN KEY ("licenseKeyId") REFERENCES "LicenseKey"("id") ON DELETE CASCADE ON UPDATE CASCADE;
