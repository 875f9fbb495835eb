// The pieces the admin API's answer schemas are built from: amounts, days and times, references to a
// registered schema, `{"data": [...]}` listings and the error answers every route may give.

export const nullable = (type: string) => ({ type: [type, "null"] }) as const;

/** A reference to a registered schema. */
export const ref = (id: string) => ({ $ref: `${id}#` }) as const;

/** An amount as the admin API shows it: exact nano-USD next to a readable USD decimal. */
export const money = {
  type: "object",
  required: ["nano", "usd"],
  additionalProperties: false,
  properties: {
    nano: { type: "string", description: "nano-USD (1e-9 USD), exact" },
    usd: { type: "string", description: "USD decimal" },
  },
} as const;

export const nullableMoney = { ...money, type: ["object", "null"] } as const;

/** {component: {units, cost}}: what each price component (input, cached_input, output, image...) cost. */
export const costByComponent = {
  type: "object",
  additionalProperties: {
    type: "object",
    required: ["units", "cost"],
    additionalProperties: false,
    properties: { units: { type: "number" }, cost: money },
  },
} as const;

export const day = { type: "string", format: "date" } as const;
export const timestamp = { type: "string", format: "date-time" } as const;

/** `{"data": [...]}` of one component. */
export const listOf = (id: string) =>
  ({
    type: "object",
    required: ["data"],
    additionalProperties: false,
    properties: { data: { type: "array", items: { $ref: `${id}#` } } },
  }) as const;

/** Any admin route may answer an error from the table: a bad request, the token, an unknown id, the database away. */
export const errorResponses = { "4xx": ref("Error"), "5xx": ref("Error") } as const;
