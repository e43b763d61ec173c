import { registerAuditCommands } from './audit.js';
import { registerBackupCommand } from './backup.js';
import { contextFor } from './command-context.js';
import { registerConsoleCommands } from './console.js';
import { registerDirectoryCommands } from './directory.js';
import { registerImportCommand } from './import.js';
import { registerKeyCommands } from './keys.js';
import { registerLeadCommands } from './leads.js';
import { registerPrivacyCommands } from './privacy.js';
import { leadlineProgram, run } from './program.js';
import { registerRetentionCommands } from './retention.js';
import { registerSeedCommand } from './seed.js';
import { registerServeCommand } from './serve.js';
import { registerV1Commands } from './v1.js';
import { registerWebhookCommands } from './webhooks.js';

/** The `leadline` command (import-format.md): thin shells over the same services the API uses. */
const program = leadlineProgram();

const withContext = contextFor(program);

registerServeCommand(program);
program
  .command('migrate')
  .description("bring the store's schema up to date")
  .action(() =>
    withContext(
      async ({ store, out }) => {
        const report = await store.migrate();
        out.result(
          report,
          report.applied.length === 0
            ? `schema is up to date (version ${report.to})`
            : `migrated from ${report.from} to ${report.to}: ${report.applied.join(', ')}`,
        );
      },
      { migrate: false },
    ),
  );
registerBackupCommand(program);
registerImportCommand(program, withContext);
registerSeedCommand(program, withContext);
registerKeyCommands(program, withContext);
registerDirectoryCommands(program, withContext);
registerV1Commands(program, withContext);
registerWebhookCommands(program, withContext);
registerLeadCommands(program, withContext);
registerConsoleCommands(program, withContext);
registerPrivacyCommands(program, withContext);
registerRetentionCommands(program, withContext);
registerAuditCommands(program, withContext);

await run(program, process.argv);
