// Placeholder: the reporter issue builds the Playwright reporter.
export {};
