import { readFileSync } from 'node:fs';
import { Command, CommanderError, Help, type Option } from 'commander';

/** package.json's version: beside dist/ in a checkout and in an installed package alike. */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/**
 * Commander checks a command's required options before its unknown ones, so `keys create
 * --membr 1` said only that `--member` was missing, never which option it did not know. Here
 * the required options are checked just before the action (a `preAction` hook of the program,
 * which every subcommand runs), after the unknown options: a misspelt option is named, with
 * commander's suggestion (`Did you mean --member?`). No command allows unknown options.
 */
class LeadlineCommand extends Command {
  override createCommand(name?: string): Command {
    return new LeadlineCommand(name);
  }
  _checkForMissingMandatoryOptions(): void {}
}
const checkRequired = (Command.prototype as unknown as { _checkForMissingMandatoryOptions(): void })
  ._checkForMissingMandatoryOptions;

/**
 * The `leadline` program with what every command shares: the global options (shown in each
 * command's help), `--version`, required options marked `(required)` in help, and usage errors
 * (unknown command or option, a missing required option) that keep `--json`'s promise — one JSON
 * document on stdout — as a command's own failures do (cli/output.ts). Subcommands inherit these
 * settings when they are added. With `--json`, stderr keeps its one line: no help after the error.
 */
export function leadlineProgram(json = process.argv.slice(2).includes('--json')): Command {
  return (
    new LeadlineCommand('leadline')
      .description('leadline: a lead service with the v1 lead retrieval interface')
      .version(version(), '-V, --version', 'print the version')
      .option('--db <path>', 'embedded store file (default ./data/leadline.db)')
      .option('--database-url <url>', 'PostgreSQL URL (default DATABASE_URL)')
      .option('--json', 'print exactly one JSON document on stdout')
      .configureHelp({
        showGlobalOptions: true,
        optionDescription: (option: Option) => {
          const text = Help.prototype.optionDescription.call(new Help(), option);
          return option.mandatory ? `(required) ${text}` : text;
        },
      })
      .showHelpAfterError(!json)
      .showSuggestionAfterError(true)
      // With --json, stderr keeps its one line: commander puts its suggestion on a line of its own.
      .configureOutput({
        outputError: (text, write) => write(json ? `${text.trim().replace(/\s*\n\s*/g, ' ')}\n` : text),
      })
      .hook('preAction', (_program, action) => checkRequired.call(action))
      .exitOverride()
  );
}

/**
 * Parses and runs; a usage error exits with commander's status (1) after its message on stderr
 * and, with `--json` anywhere on the line, `{"error":{"message":"…"}}` on stdout. Help and
 * `--version` exit 0.
 */
export async function run(program: Command, argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (err.exitCode !== 0 && argv.slice(2).includes('--json')) {
      // `leadline` or `leadline keys` alone: commander shows the help and says only "(outputHelp)".
      const message =
        err.code === 'commander.help'
          ? 'no command given: --help lists the commands'
          : err.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
      process.stdout.write(`${JSON.stringify({ error: { message } })}\n`);
    }
    process.exit(err.exitCode);
  }
}
