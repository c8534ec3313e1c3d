import { CardDeclined, InvalidProcessorSignature } from '../src/payments/processors/processor.js';
import { signSandboxPayload, verifySandboxSignature } from '../src/payments/processors/sandbox-signature.js';
import { checkCard } from '../src/payments/processors/test-cards.js';

// The pure parts of the processors: card checks as a card form and an issuer make them, and the
// sandbox's webhook signature.

describe('test cards (unit)', () => {
  const at = new Date('2026-11-24T12:00:00Z');
  const card = (number: string, more: Partial<{ expMonth: number; expYear: number; cvc: string }> = {}) => ({ number, expMonth: 12, expYear: 2030, cvc: '123', ...more });

  test('malformed details throw CardDeclined with Stripe’s codes and never echo the number', () => {
    const cases: [ReturnType<typeof card>, string][] = [
      [card('4242424242424241'), 'incorrect_number'],
      [card('4242'), 'incorrect_number'],
      [card('4242 4242 4242 424x'), 'incorrect_number'],
      [card('4242424242424242', { expMonth: 13 }), 'invalid_expiry_month'],
      [card('4242424242424242', { expMonth: 0 }), 'invalid_expiry_month'],
      [card('4242424242424242', { expYear: 2150 }), 'invalid_expiry_year'],
      [card('4242424242424242', { cvc: '12' }), 'invalid_cvc'],
      [card('378282246310005', { cvc: '123' }), 'invalid_cvc'],
    ];
    for (const [details, code] of cases) {
      const error = (() => {
        try {
          checkCard(details, at);
        } catch (caught) {
          return caught as CardDeclined;
        }
      })();
      expect(error).toBeInstanceOf(CardDeclined);
      expect(error).toMatchObject({ code, name: 'CardDeclined', retryable: false });
      expect(error!.message).not.toContain(details.number.slice(0, 8));
    }
  });

  test('expiry is the end of the month; two-digit years are 20xx; spaces in numbers are allowed', () => {
    expect(checkCard(card('4242 4242 4242 4242', { expMonth: 11, expYear: 26 }), at)).toMatchObject({ last4: '4242', expYear: 2026, brand: 'visa' });
    expect(checkCard(card('4242424242424242', { expMonth: 10, expYear: 2026 }), at).declineCode).toBe('expired_card');
    expect(checkCard(card('4111111111111111'), at).declineCode).toBe('test_mode_live_card');
  });

  test('signatures: valid, tampered, stale', () => {
    const body = '{"a":1}';
    const header = signSandboxPayload('secret', body, at);
    expect(() => verifySandboxSignature('secret', body, header, at)).not.toThrow();
    expect(() => verifySandboxSignature('secret', '{"a":2}', header, at)).toThrow(InvalidProcessorSignature);
    expect(() => verifySandboxSignature('other', body, header, at)).toThrow(InvalidProcessorSignature);
    expect(() => verifySandboxSignature('secret', body, header, new Date(at.getTime() + 301_000))).toThrow(InvalidProcessorSignature);
    expect(() => verifySandboxSignature('secret', body, 't=1', at)).toThrow(InvalidProcessorSignature);
  });
});
