-- Idempotency-Keys are no longer the checkout's alone (subscription create and plan changes take
-- them too): the table and its target column say so, and a target names what the key was sent to.
ALTER TABLE "CheckoutIdempotencyKey" RENAME TO "IdempotencyKey";
ALTER TABLE "IdempotencyKey" RENAME CONSTRAINT "CheckoutIdempotencyKey_pkey" TO "IdempotencyKey_pkey";
ALTER TABLE "IdempotencyKey" RENAME COLUMN "checkoutElementId" TO "target";
ALTER TABLE "IdempotencyKey" ALTER COLUMN "target" TYPE TEXT USING 'checkout/' || "target"::text;
ALTER INDEX "CheckoutIdempotencyKey_checkoutElementId_key_key" RENAME TO "IdempotencyKey_target_key_key";
ALTER INDEX "CheckoutIdempotencyKey_createdAt_idx" RENAME TO "IdempotencyKey_createdAt_idx";
