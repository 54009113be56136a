// Shared by the browser tests: the check lines and their summary, a page
// opened offline in Chromium with its errors and requests kept, and the
// headless Chromium (Debian's, driven by playwright-core, required only by
// the tests that open one) the tests run in.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");

let passed = 0, failed = 0;

// prints "ok: NAME" or "FAIL: NAME (DETAIL)" and counts it
function check(name, ok, detail) {
	console.log(`${ok ? "ok" : "FAIL"}: ${name}${detail ? " (" + detail + ")" : ""}`);
	ok ? passed++ : failed++;
}

// prints "N passed, N failed" and exits, 1 on a failure
function finish() {
	console.log(`${passed} passed, ${failed} failed`);
	process.exit(failed ? 1 : 0);
}

// Opens file in a new page of ctx, width pixels wide, answering only
// requests for the file itself (allowed(url, base) says which, base its
// name; by default a file: URL ending with it) and aborting, and keeping,
// any other; waits for the page's dp-ready mark. Returns the page, its
// console errors and uncaught exceptions, the other requests, the time of
// its first dp-ready mark (-1 when none) and how many there are.
async function openPage(ctx, file, width,
			allowed = (url, base) => url.startsWith("file:") && url.endsWith(base)) {
	const page = await ctx.newPage();
	const errors = [], requests = [];
	page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
	page.on("pageerror", (e) => errors.push(e.message));
	// the page must need nothing beyond its own file
	await page.route("**/*", (route) => {
		const url = route.request().url();
		if (allowed(url, path.basename(file)))
			return route.continue();
		requests.push(url);
		return route.abort();
	});
	await page.setViewportSize({ width, height: 1000 });
	await page.goto("file://" + path.resolve(file));
	await page.waitForSelector("body[data-ready='1']", { timeout: 30000 }).catch(() => {});
	const marks = await page.evaluate(() =>
		performance.getEntriesByName("dp-ready").map((m) => m.startTime));
	return { page, errors, requests, ready: marks.length ? marks[0] : -1, readyMarks: marks.length };
}

// Runs body(ctx) in a headless, offline Chromium with a fresh profile; an
// exception fails the check "the test ran to its end". Then finish().
async function inChromium(body) {
	const { chromium } = require("playwright-core");
	const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), "dp-chromium-"));
	const ctx = await chromium.launchPersistentContext(profileDir, {
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		headless: true,
		offline: true,
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		       "--disable-component-update", "--disable-sync", "--no-first-run"],
	});
	try {
		await body(ctx);
	} catch (e) {
		check("the test ran to its end", false, e.stack);
	} finally {
		await ctx.close();
		fs.rmSync(profileDir, { recursive: true, force: true });
	}
	finish();
}

module.exports = { check, finish, openPage, inChromium };
