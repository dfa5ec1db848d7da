// Checks OpenAPI documents against the official schema of their version (3.0 or 3.1), with
// @apidevtools/swagger-parser: the 3.0 export (`openapi --openapi-3-0`) must be a document that
// 3.0-only generators accept.
//
//   node test/validate.mjs FILE...
//
// Prints exactly one JSON line on standard output: {"ok":true,"documents":[{file,openapi}]} or
// {"ok":false,...} with each invalid document's errors (then exits 1).

import process from 'node:process';

import SwaggerParser from '@apidevtools/swagger-parser';

const outcome = { ok: true, documents: [] };
for (const file of process.argv.slice(2)) {
  try {
    const api = await SwaggerParser.validate(file);
    outcome.documents.push({ file, openapi: api.openapi });
  } catch (error) {
    outcome.ok = false;
    outcome.documents.push({ file, error: String(error?.message ?? error).slice(0, 4000) });
  }
}
outcome.ok &&= outcome.documents.length > 0;
process.stdout.write(`${JSON.stringify(outcome)}\n`);
process.exitCode = outcome.ok ? 0 : 1;
