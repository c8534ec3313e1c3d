// The payments domain: what it contributes to the service (see src/domain-module.ts).
import type { DomainModule } from '../domain-module.js';
import { events } from './events.js';

export const paymentsModule: DomainModule = { events };
