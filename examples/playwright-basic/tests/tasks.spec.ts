import { expect, test } from '@playwright/test';

test.describe('task list', () => {
  test('lists the seeded tasks', { tag: '@smoke' }, async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Tasks' })).toBeVisible();
    await expect(page.getByRole('listitem').filter({ hasText: 'Write the release notes' })).toBeVisible();
    await expect(page.getByRole('listitem').filter({ hasText: 'Rotate the CI API key' })).toHaveClass('done');
  });

  test('filters by priority', async ({ page }) => {
    await page.goto('/');
    await page.getByLabel('Priority').selectOption('medium');
    await expect(page.getByRole('listitem')).toHaveCount(2);
    await expect(page.getByRole('listitem').first()).toContainText('Review the login form');
  });

  // Fails on purpose: the app writes "1 tasks". The reporter uploads its screenshot and trace.
  test('uses the singular for a single task', async ({ page }) => {
    await page.goto('/');
    await page.getByLabel('Priority').selectOption('high');
    await expect(page.getByRole('listitem')).toHaveCount(1);
    await expect(page.locator('#count')).toHaveText('1 task');
  });

  test('exports the list as CSV', async ({ page }) => {
    test.skip(true, 'CSV export is not built yet');
    await page.goto('/export.csv');
  });
});

test.describe('new task form', () => {
  test('adds a task', { tag: ['@smoke', '@forms'] }, async ({ page }) => {
    const title = `Book the retro room ${test.info().workerIndex}-${Date.now()}`;
    await test.step('open the form', async () => {
      await page.goto('/');
      await page.getByRole('link', { name: 'New task' }).click();
      await expect(page).toHaveURL(/\/new$/);
    });
    await test.step('fill it in and submit', async () => {
      await page.getByLabel('Title').fill(title);
      await page.getByLabel('Priority').selectOption('low');
      await page.getByRole('button', { name: 'Add task' }).click();
    });
    await test.step('the task is listed', async () => {
      await expect(page).toHaveURL(/\/$/);
      await expect(page.getByRole('listitem').filter({ hasText: title })).toContainText('low');
    });
  });

  test('rejects an empty title', { tag: '@forms' }, async ({ page }) => {
    await page.goto('/new');
    await page.getByRole('button', { name: 'Add task' }).click();
    await expect(page.getByRole('alert')).toHaveText('Title is required');
    await expect(page).toHaveURL(/\/new$/);
  });
});
