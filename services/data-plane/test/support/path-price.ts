// A data plane's path price for unit tests: every part unset unless given.
import type { Price } from "../../src/catalogue/catalogue-snapshot";

export const pathPrice = (fields: Partial<Price>): Price => ({
  inputNanoPerM: null,
  outputNanoPerM: null,
  imageNano: null,
  requestNano: null,
  verified: true,
  source: "test",
  ...fields,
});
