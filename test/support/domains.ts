// Tests that call the domains' services in their own process (seeding orders, moving payments)
// wire the domains' hooks as every process of the service does: each domain registers its
// reactions on the others when its module loads (src/domains.ts).
import '../../src/domains.js';
