import { readFileSync } from 'node:fs';
import { readApiModel } from './src/api/operations.ts';
import { operationDetail, bundleSchema } from './src/api/operation-detail.ts';
import { parseDescription } from './src/api/description-text.ts';
const t0 = performance.now();
const b = readFileSync(process.argv[2]);
const { doc } = parseDescription(b, 'x');
const t1 = performance.now();
const model = readApiModel(doc);
const t2 = performance.now();
let n = 0;
const mode = process.argv[3];
for (const op of model.operations) {
  if (mode === 'bundle') { for (const p of op.parameters) bundleSchema(doc, p.schema); if (op.body) bundleSchema(doc, op.body.schema); }
  else { const d = operationDetail(doc, op); n += JSON.stringify(d).length; }
}
const t3 = performance.now();
console.log({ parse: t1 - t0, model: t2 - t1, detail: t3 - t2, n, rss: process.memoryUsage().rss / 1e6 });
