// Headless Chromium for the page tests, launched as test-peers.md says (Debian's chromium, flags that
// keep it off the network), closed in t.after; pages record the console errors Chromium reports (CSP
// violations among them). Tests that need it skip by name without it: skipWithout('chromium').
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
/** How long a page step may take before the test fails. */
export const BROWSER_WAIT_MS = 15_000;

export async function launchChromium(t: TestContext): Promise<Browser> {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: install Debian's chromium (listed in .ci/apt-packages)`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: BROWSER_WAIT_MS });
  t.after(() => browser.close());
  return browser;
}

/** A fresh page in its own context that records the console errors Chromium reports. */
export async function recordingPage(browser: Browser, t: TestContext, options: BrowserContextOptions = {}): Promise<{ page: Page; errors: string[] }> {
  const context = await browser.newContext(options);
  t.after(() => context.close());
  const page = await context.newPage();
  page.setDefaultTimeout(BROWSER_WAIT_MS);
  const errors: string[] = [];
  page.on('console', (message) => {
    // The hub serves /favicon.ico: a missing icon is an error like any other.
    if (message.type() === 'error') errors.push(message.text());
  });
  return { page, errors };
}

/** The partner app behind a connect session's redirectUrl: answers a small page; its origin. */
export async function startPartner(t: TestContext): Promise<string> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>partner</title><h1>Partner app</h1>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
