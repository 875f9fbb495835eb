// What every bundle of this repository shares (esbuild): one ES module for plain node, from the lowest
// Node version the project supports, ASCII only (V8 then holds its source as a one-byte string).
export const NODE_ESM_BUNDLE = {
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20.19",
  minifyWhitespace: true,
  charset: "ascii",
} as const;
