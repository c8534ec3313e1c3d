// The hosted checkout page (GET /checkout/{checkoutElementId}).
import type { PrismaClient } from '../generated/prisma/client.js';

export interface CheckoutPage {
  status: number;
  html: string;
  /** Extra response headers (security policy). */
  headers?: Record<string, string>;
}

/** The page for an element; a clear page with 404 when it cannot be shown. */
export async function renderCheckoutPage(prisma: PrismaClient, checkoutElementId: string, searchParams: URLSearchParams): Promise<CheckoutPage> {
  void prisma;
  void searchParams;
  void checkoutElementId;
  return { status: 404, html: '<!doctype html><title>Checkout</title><p>This checkout is not available.</p>' };
}
