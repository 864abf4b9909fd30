// Module hooks for node20.mjs: 'fs' imported by the conformance suite
// resolves to fs with a globSync that refuses.
const shim = 'data:text/javascript,' + encodeURIComponent(
  "export * from 'node:fs';" +
  "export function globSync() { throw new Error('fs.globSync needs Node 22 (used by tier-check only)'); }");

export async function resolve(specifier, context, next) {
  const fromSuite = context.parentURL && context.parentURL.includes('/@modelcontextprotocol/conformance/');
  if (fromSuite && (specifier === 'fs' || specifier === 'node:fs')) {
    return { url: shim, shortCircuit: true };
  }
  return next(specifier, context);
}
