// Tenants cannot reach what the operator's provider accounts keep (issue 33, item 4), end to end:
// a chat `file` part by file_id, a Gemini Files API or gs:// URI as an image (any dialect) are 400
// before anything is held or sent; chat's `store: true` reaches OpenAI as `store: false`, and its
// `metadata` not at all. What reached the upstream is read from the mock's record.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GatewayStack, marker, startStack, type TestProject } from "../harness/gateway-stack";
import { accessPath, catalogueOf, chatModel, price } from "../support/catalogue-file";

const MINI = "openai/gpt-4.1-mini";
const FLASH = "google/gemini-2.5-flash";
const FILES_URI = "https://generativelanguage.googleapis.com/v1beta/files/abc123";
const GCS_URI = "gs://operator-bucket/secret.png";

const CATALOGUE = catalogueOf([
  chatModel(MINI, [accessPath("openai", "gpt-4.1-mini", "OPENAI_API_KEY", price("0.40", "1.60"))]),
  chatModel(FLASH, [accessPath("google", "gemini-2.5-flash", "GOOGLE_API_KEY", price("0.30", "2.50"))]),
]);

describe("provider storage is not the tenants'", () => {
  let stack: GatewayStack;
  let project: TestProject;

  beforeAll(async () => {
    stack = await startStack({ backend: "postgresql", mockAsProviders: ["google"] });
    await stack.loadCatalogue(CATALOGUE);
    project = await stack.createProject({ balanceUsd: "5.00" });
  });

  afterAll(async () => {
    await stack?.stop();
  });

  /** A 400 unsupported_input naming `part`; nothing sent upstream, nothing held or billed. */
  async function expectRefused(url: string, body: unknown, tag: string, part: string): Promise<void> {
    const response = await stack.post(url, project.key, body);
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("unsupported_input");
    expect(error.message.startsWith(`${part}: `)).toBe(true);
    expect(await stack.mockRequestsWith(tag)).toHaveLength(0);
    const requestId = response.headers.get("x-request-id");
    expect((await stack.ledger(project.projectId)).filter((entry) => entry.request_id === requestId)).toEqual([]);
  }

  it("sends chat's store: true to OpenAI as store: false, without metadata", async () => {
    const tag = marker();
    const response = await stack.post("/v1/chat/completions", project.key, {
      model: MINI,
      store: true,
      metadata: { tenant: "acme" },
      messages: [{ role: "user", content: tag }],
    });
    expect(response.status).toBe(200);
    const [sent] = await stack.mockRequestsWith(tag);
    expect(sent!.body.store).toBe(false);
    expect(sent!.body).not.toHaveProperty("metadata");
  });

  it("refuses a chat file part by file_id, to OpenAI or any model", async () => {
    for (const model of [MINI, "auto"]) {
      const tag = marker();
      const content = [
        { type: "text", text: tag },
        { type: "file", file: { file_id: "file-abc" } },
      ];
      await expectRefused("/v1/chat/completions", { model, messages: [{ role: "user", content }] }, tag, "messages[0].content[1]");
    }
  });

  it.each([FILES_URI, GCS_URI])("refuses %s as an image in every dialect, before Gemini gets a fileData", async (uri) => {
    const chatTag = marker();
    await expectRefused(
      "/v1/chat/completions",
      {
        model: FLASH,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: chatTag },
              { type: "image_url", image_url: { url: uri } },
            ],
          },
        ],
      },
      chatTag,
      "messages[0].content[1].image_url",
    );
    const responsesTag = marker();
    await expectRefused(
      "/v1/responses",
      {
        model: FLASH,
        input: [
          {
            role: "user",
            content: [
              { type: "input_text", text: responsesTag },
              { type: "input_image", image_url: uri },
            ],
          },
        ],
      },
      responsesTag,
      "input[0].content[1].image_url",
    );
    const messagesTag = marker();
    const response = await stack.post("/v1/messages", project.key, {
      model: FLASH,
      max_tokens: 64,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: messagesTag },
            { type: "image", source: { type: "url", url: uri } },
          ],
        },
      ],
    });
    expect(response.status).toBe(400);
    const refused = (await response.json()) as { type: string; error: { code: string; message: string } };
    expect(refused.error).toMatchObject({
      code: "unsupported_input",
      message: expect.stringMatching(/^messages\.0\.content\.1\.source\.url: /),
    });
    expect(await stack.mockRequestsWith(messagesTag)).toHaveLength(0);
  });

  it("still sends a public https image to Gemini by reference", async () => {
    const tag = marker();
    const response = await stack.post("/v1/chat/completions", project.key, {
      model: FLASH,
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: tag },
            { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
          ],
        },
      ],
    });
    expect(response.status).toBe(200);
    const [sent] = await stack.mockRequestsWith(tag);
    expect(JSON.stringify(sent!.body)).toContain('"fileData":{"fileUri":"https://example.com/cat.png","mimeType":"image/png"}');
  });
});
