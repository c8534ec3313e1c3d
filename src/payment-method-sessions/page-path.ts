/** Where the hosted payment-method page lives: {PAGE_PATH}/{subscriptionId}/{sessionToken}; its completion route is under it. */
export const PAGE_PATH = '/payment-method';
