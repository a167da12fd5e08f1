// Package dashboardtest tests the sandbox's dashboard (GET /sandbox/ of
// package paygatetest) end to end in headless Chromium. It is a module of
// its own so that the SDK's module never depends on chromedp; it has no API.
package dashboardtest
