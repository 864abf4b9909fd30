// Validates a HAR file against the HAR 1.2 schema (har-validator, on
// har-schema): prints "valid N entries" or the schema's errors, exit 1.
import { readFileSync } from 'node:fs';
import validate from 'har-validator';

const har = JSON.parse(readFileSync(process.argv[2], 'utf8'));
try {
  await validate.har(har);
  console.log(`valid ${har.log.entries.length} entries`);
} catch (err) {
  console.error(JSON.stringify(err.errors ?? String(err), null, 1));
  process.exit(1);
}
