// Builds the package into dist/: the JavaScript and its declarations by tsc
// (tsconfig.build.json), and the generated types (src/schema.d.ts), which tsc never copies,
// beside the declarations that import them. `npm run build`; `npm pack` runs it (prepack).

import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(dist, { recursive: true, force: true });
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (compiled.status !== 0) {
  process.exit(compiled.status ?? 1);
}
copyFileSync(join(root, 'src/schema.d.ts'), join(dist, 'schema.d.ts'));
