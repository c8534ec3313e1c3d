-- CreateTable
CREATE TABLE "ReconciliationRun" (
    "id" UUID NOT NULL,
    "processor" "PaymentProcessor" NOT NULL,
    "workspaceId" UUID,
    "since" TIMESTAMPTZ(3) NOT NULL,
    "until" TIMESTAMPTZ(3) NOT NULL,
    "chargesChecked" INTEGER NOT NULL,
    "refundsChecked" INTEGER NOT NULL,
    "startedAt" TIMESTAMPTZ(3) NOT NULL,
    "finishedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ReconciliationRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ReconciliationFinding" (
    "id" UUID NOT NULL,
    "runId" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "note" TEXT NOT NULL,
    "workspaceId" UUID,
    "processorObjectId" TEXT NOT NULL,
    "paymentId" UUID,
    "refundId" UUID,
    "ours" JSONB,
    "theirs" JSONB,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ReconciliationFinding_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ReconciliationRun_processor_workspaceId_finishedAt_idx" ON "ReconciliationRun"("processor", "workspaceId", "finishedAt" DESC);

-- CreateIndex
CREATE INDEX "ReconciliationFinding_runId_idx" ON "ReconciliationFinding"("runId");

-- AddForeignKey
ALTER TABLE "ReconciliationFinding" ADD CONSTRAINT "ReconciliationFinding_runId_fkey" FOREIGN KEY ("runId") REFERENCES "ReconciliationRun"("id") ON DELETE CASCADE ON UPDATE CASCADE;
