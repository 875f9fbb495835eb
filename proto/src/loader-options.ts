import type { Options } from "@grpc/proto-loader";

// One set of options for both the runtime loader and the type generator
// (scripts/generate.ts passes the same flags), so generated types describe
// exactly the objects grpc-js hands to the code.
export const loaderOptions = {
  keepCase: false,
  longs: String, // int64 money travels as decimal strings; code converts with BigInt()
  enums: String,
  defaults: true,
  oneofs: true,
} satisfies Options;

export const generatorFlags = ["--longs=String", "--enums=String", "--defaults", "--oneofs", "--grpcLib=@grpc/grpc-js"];

/** A proto field's name as the generated types spell it (proto-loader's camelCase: `cache_write_5m_nano_per_m` -> `cacheWrite_5mNanoPerM`). */
export const protoField = (name: string): string => name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
