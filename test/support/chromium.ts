/**
 * The server-rendered pages in a real browser: Debian's Chromium (scripts/stack.sh installs
 * it) driven by playwright-core, which brings no browser of its own. Each context has its own
 * client address and refuses (and records) every request outside the service; axe-core runs
 * in the page.
 */
import { readFileSync } from 'node:fs';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { uniqueIp } from './auth';
import { testEnv } from './env';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export const launchChromium = () => chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });

/** A page in a new context of `browser`; a request outside the service is refused and its URL pushed to `outside`. */
export async function servicePage(browser: Browser, options: BrowserContextOptions, outside: string[]): Promise<Page> {
  const context = await browser.newContext({ ...options, extraHTTPHeaders: { 'x-forwarded-for': uniqueIp() } });
  const origin = new URL(testEnv().hostUrl).origin;
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (new URL(url).origin === origin) return route.continue();
    outside.push(url);
    return route.abort();
  });
  return context.newPage();
}

interface AxeResult {
  violations: Array<{ id: string; impact: string | null; help: string; nodes: unknown[] }>;
}

/** axe-core's serious and critical violations on the page. */
export async function axeViolations(page: Page): Promise<AxeResult['violations']> {
  // Injected over the DevTools protocol: the page's CSP admits no script, which is the point.
  await page.evaluate(AXE);
  // Expressions as strings: the tests compile without the DOM's types.
  const result = await page.evaluate<AxeResult>("axe.run({ resultTypes: ['violations'] })");
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
