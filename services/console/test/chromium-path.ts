// Where the console's browser tests find Chromium: Debian's `chromium` package unless CHROMIUM_PATH says.
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
