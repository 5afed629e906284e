import { expect, test } from '@playwright/test';

test('adds up the cart', () => {
  expect(1 + 2).toBe(3);
});

test('attaches a screenshot of the checkout page', async ({ page }, testInfo) => {
  await page.setContent('<h1>checkout</h1>');
  await expect(page.locator('h1')).toHaveText('checkout');
  // An in-memory attachment (body, no file on disk).
  await testInfo.attach('shot', { body: await page.screenshot(), contentType: 'image/png' });
});

test('computes the tax', () => {
  expect(10 * 0.2).toBe(3);
});

test('retries until the stock service answers', () => {
  expect(test.info().retry).toBe(1);
});

test.skip('prints a receipt', () => {});
