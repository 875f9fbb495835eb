// The admin API's reference page: plain HTML rendered from the OpenAPI document, with no script,
// stylesheet or font from elsewhere (an operator's network may have no internet).
import { type OpenApiDocument, operationsOf, schemaOf } from "./openapi-operations";

const html = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
const json = (value: unknown) => `<pre>${html(JSON.stringify(value, null, 2))}</pre>`;

export function renderReferencePage(document: OpenApiDocument): string {
  const operations = operationsOf(document);
  const index = operations
    .map((op, i) => `<li><a href="#op-${i}"><code>${op.method} ${html(op.path)}</code></a> ${html(op.summary ?? "")}</li>`)
    .join("\n");
  const sections = operations
    .map((op, i) => {
      const parameters = (op.parameters ?? [])
        .map(
          (p) =>
            `<li><code>${html(p.name)}</code> (${html(p.in)}${p.required ? ", required" : ""}): <code>${html(JSON.stringify(p.schema))}</code></li>`,
        )
        .join("");
      const body = schemaOf(op.requestBody?.content);
      const responses = Object.entries(op.responses ?? {})
        .map(([status, response]) => {
          const answer = schemaOf(response.content);
          return `<h4>${html(status)} ${html(answer?.type ?? "")}</h4>${answer ? json(answer.schema) : ""}`;
        })
        .join("");
      return [
        `<section id="op-${i}"><h2><code>${op.method} ${html(op.path)}</code></h2>`,
        `<p>${html(op.summary ?? "")}</p><p>${op.needsToken ? "Needs the admin token (<code>Authorization: Bearer</code>)." : "No token."}</p>`,
        parameters ? `<h3>Parameters</h3><ul>${parameters}</ul>` : "",
        body ? `<h3>Request body (${html(body.type)})</h3>${json(body.schema)}` : "",
        `<h3>Responses</h3>${responses}</section>`,
      ].join("\n");
    })
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${html(document.info.title)}</title>
<style>body{font-family:sans-serif;max-width:60rem;margin:auto;padding:1rem}pre{background:#f4f4f4;padding:.5rem;overflow:auto}</style>
</head><body>
<h1>${html(document.info.title)}</h1>
<p>${html(document.info.description ?? "")} The document: <a href="openapi.json">openapi.json</a>.</p>
<ul>
${index}
</ul>
${sections}
<h2>Schemas</h2>
${json(document.components?.schemas ?? {})}
</body></html>
`;
}
