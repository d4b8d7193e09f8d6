// Package e2e holds the playground's end-to-end tests: a real server on a loopback port and a
// real browser (Debian's chromium, driven with chromedp), a shared scenario URL reopened, and
// the binary itself signalled to shut down. It has no non-test code.
package e2e
