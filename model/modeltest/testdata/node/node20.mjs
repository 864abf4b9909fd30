// The conformance suite (0.1.16) imports fs.globSync, which Node 22 added;
// it calls it only in its tier-check command, never in "server". On an
// older Node this hook gives the suite an fs with a globSync that says so,
// so its server checks run on the Node 20 this machine has. Loaded with
// `node --import ./node20.mjs` (output/mcpserver TestConformance does it).
import { register } from 'node:module';

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  register(new URL('./node20-hooks.mjs', import.meta.url));
}
