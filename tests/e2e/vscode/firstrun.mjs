// The first and a later start of the self-contained .vsix in code-server, as a person sees it:
// open the demo workspace, (first run) catch the set-up progress notification and screenshot
// it, open a nested file, read its code lens, reveal the Active Rules view. A later start
// must show the lens without any set-up notification.
//
// Inputs (environment): CS_URL, DEMO_REPO, DEEP_FILE_NAME, LENS_EXPECT, TREE_EXPECT (JSON
// list), FIRST_RUN ("1" or "0"), SETUP_TEXT (text of the set-up notification), ARTIFACTS,
// PLAYWRIGHT_DIR, RESULT_OUT (JSON summary for pytest), SHOT_PREFIX (screenshot names).
// With EXPECT_ERROR set, the run only waits for the error notification that contains it
// (no Python on PATH), records it and how many notifications show, and stops there.
// With EXTRA_TOAST set, a working run ends by waiting for a notification containing it.
import { createRequire } from "node:module";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const env = (k) => {
  const v = process.env[k];
  if (v === undefined) throw new Error(`missing env ${k}`);
  return v;
};
const require = createRequire(join(env("PLAYWRIGHT_DIR"), "package.json"));
const { chromium } = require("playwright-core");
const ARTIFACTS = env("ARTIFACTS");
mkdirSync(ARTIFACTS, { recursive: true });
const firstRun = env("FIRST_RUN") === "1";
const t0 = Date.now();
const result = { firstRun, steps: [], screenshots: [] };
const step = (name, extra = {}) => {
  const entry = { name, at_s: +((Date.now() - t0) / 1000).toFixed(2), ...extra };
  result.steps.push(entry);
  console.log(`[${entry.at_s.toFixed(1)}s] ${name} ${JSON.stringify(extra)}`);
};

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--disable-dev-shm-usage", "--disable-quic"],
});
const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
const shot = async (name) => {
  const p = join(ARTIFACTS, `${env("SHOT_PREFIX")}${name}`);
  await page.screenshot({ path: p });
  result.screenshots.push(p);
};
// Every notification that mentions the set-up, however briefly it shows, is recorded.
await page.exposeFunction("rulelensSawToast", (text) => (result.setupToasts ??= []).push(text));
await page.addInitScript((needle) => {
  const seen = new Set();
  new MutationObserver(() => {
    for (const el of document.querySelectorAll(".notification-toast .notification-list-item-message")) {
      const text = el.textContent ?? "";
      if (text.includes(needle) && !seen.has(text)) {
        seen.add(text);
        window.rulelensSawToast(text);
      }
    }
  }).observe(document, { childList: true, subtree: true, characterData: true });
}, env("SETUP_TEXT"));

// No usable Python: one error notification, and nothing else.
const expectErrorRun = async (needle) => {
  const toast = page.locator(".notification-toast", { hasText: needle }).first();
  await toast.waitFor({ timeout: 90000 });
  await page.waitForTimeout(1500); // give a second notification the chance to appear
  result.errorToast = (await toast.innerText()).trim();
  result.toastCount = await page.locator(".notification-toast").count();
  await shot("error.png");
  step("error shown", { toast: result.errorToast });
};

// The server runs: (first run) the set-up progress, then the lens and the view.
const workingRun = async () => {
  if (firstRun) {
    const toast = page.locator(".notification-toast", { hasText: env("SETUP_TEXT") }).first();
    await toast.waitFor({ timeout: 90000 });
    // The message line changes as the set-up moves on; wait for the install step to show.
    await page.locator(".notification-toast", { hasText: "installing rulelens" }).first().waitFor({ timeout: 60000 }).catch(() => {});
    result.progressToast = (await toast.innerText()).trim();
    await shot("progress.png");
    step("set-up progress shown", { toast: result.progressToast });
  }

  await page.locator(".explorer-folders-view .monaco-list-row").first().waitFor({ timeout: 60000 });
  const input = page.locator(".quick-input-widget input");
  const name = env("DEEP_FILE_NAME");
  for (let attempt = 1; ; attempt++) {
    try {
      await page.keyboard.press("Escape");
      await page.keyboard.press("Control+P");
      await input.waitFor({ state: "visible", timeout: 5000 });
      await input.fill(name, { timeout: 5000 });
      await page.locator(".quick-input-list .monaco-list-row", { hasText: name }).first().waitFor({ timeout: 10000 });
      await page.keyboard.press("Enter");
      await page.locator(".tabs-container .tab.active", { hasText: name }).first().waitFor({ timeout: 20000 });
      break;
    } catch (err) {
      if (attempt >= 4) throw err;
      await page.waitForTimeout(500);
    }
  }
  step("editor open");

  const lens = page.locator(".monaco-editor .codelens-decoration", { hasText: env("LENS_EXPECT") }).first();
  await lens.waitFor({ timeout: 120000 });
  result.lenses = await page.locator(".monaco-editor .codelens-decoration").allInnerTexts();
  step("code lens", { lenses: result.lenses });

  await lens.locator("a").first().click();
  const rows = page.locator(".part.sidebar .monaco-list-row");
  for (const text of JSON.parse(env("TREE_EXPECT"))) await rows.filter({ hasText: text }).first().waitFor({ timeout: 30000 });
  result.treeRows = await rows.allInnerTexts();
  step("active rules view", { rows: result.treeRows.length });
  await shot("active-rules.png");
  if (process.env.EXTRA_TOAST) {
    const extra = page.locator(".notification-toast", { hasText: process.env.EXTRA_TOAST }).first();
    await extra.waitFor({ timeout: 60000 });
    result.extraToast = (await extra.innerText()).trim();
    await shot("extra.png");
    step("notification", { toast: result.extraToast.split("\n")[0] });
  }
};

try {
  await page.goto(`${env("CS_URL")}/?folder=${encodeURIComponent(env("DEMO_REPO"))}`, { waitUntil: "domcontentloaded" });
  await page.waitForSelector(".monaco-workbench", { timeout: 90000 });
  step("workbench rendered");
  if (process.env.EXPECT_ERROR) await expectErrorRun(process.env.EXPECT_ERROR);
  else await workingRun();
  result.ok = true;
} catch (err) {
  result.ok = false;
  result.error = String(err?.stack ?? err);
  try { await shot("failure.png"); } catch {}
  console.error(result.error);
} finally {
  result.total_s = +((Date.now() - t0) / 1000).toFixed(2);
  writeFileSync(env("RESULT_OUT"), JSON.stringify(result, null, 2));
  await browser.close();
}
process.exit(result.ok ? 0 : 1);
