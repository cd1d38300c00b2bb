import { Argument, Command, Option } from 'commander';
import type { GlobalOptions } from './context';

/*
 * The command tree of `fathom`: names, arguments, options, help and examples. It loads nothing heavy:
 * each action imports its command group (and @fathom/core) when it runs, so `--help`, `--version`,
 * usage errors and `completion` answer at once. docs/cli.md documents every command (checked by a test).
 */

type Options = GlobalOptions & { json?: boolean };

/** The options of a command merged with the program's (`--base-url`… work before or after the command). */
const optionsOf = (command: Command) => command.optsWithGlobals<Options>();

const target = async (command: Command, kind: 'account' | 'admin' = 'account') => {
  const { resolveTarget } = await import('./context');
  return resolveTarget(optionsOf(command), kind);
};

const examples = (...lines: string[]) => `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;

const jsonOption = () => new Option('--json', 'print JSON (for scripts) instead of a table');

/** Builds the program; `version` is the package's. */
export function buildProgram(version: string): Command {
  const program = new Command('fathom')
    .description('Fathom: serve the platform API, and work with its documents, accounts and usage from the shell.')
    .version(version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .addOption(new Option('--base-url <url>', 'remote mode: the Fathom server to talk to').env('FATHOM_BASE_URL'))
    .addOption(new Option('--api-key <key>', "an account's API key (remote mode, or through a running server)").env('FATHOM_API_KEY'))
    .addOption(new Option('--admin-key <key>', 'the admin key, for accounts and keys in remote mode').env('FATHOM_ADMIN_KEY'))
    .addOption(new Option('--account <id>', 'embedded mode: act for this account (default: the FATHOM_API_KEY account, else the oldest)'))
    .showHelpAfterError()
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .exitOverride()
    .addHelpText(
      'after',
      `
Modes: with --base-url (FATHOM_BASE_URL) commands go over the public API of that server. Without it they
open the data dir (FATHOM_DATA_DIR) in this process; when a 'fathom serve' holds that data dir, they go
through it with --api-key (FATHOM_API_KEY) or stop and say so.
Exit codes: 0 ok, 1 failure, 2 usage error. Settings come from the environment (docs/configuration.md).
${examples('fathom serve', 'fathom ingest ./docs --store notes', 'fathom search notes "how do bees talk"', 'FATHOM_BASE_URL=https://fathom.example.com FATHOM_API_KEY=fth_… fathom stores list --json')}`,
    );

  program
    .command('serve')
    .summary('serve the API (what npm start runs)')
    .description('Serves the platform API on HOST:PORT (and the agent service on AGENTS_PORT when set) until SIGINT/SIGTERM.')
    .addHelpText('after', examples('fathom serve', 'PORT=9000 FATHOM_DATA_DIR=/var/lib/fathom fathom serve'))
    .action(async () => (await import('./serve')).serve());

  program
    .command('ingest')
    .summary('ingest files or folders into a vector store')
    .description(
      'Ingests files and folders (recursively; hidden files and node_modules are skipped) into a vector store, created when no store has that name, and shows progress until every file is done.',
    )
    .argument('<paths...>', 'files and folders')
    .requiredOption('--store <name>', 'the vector store: an id, or a name (created if missing)')
    .option('--max-tokens <n>', 'static chunking: tokens per chunk')
    .option('--overlap <n>', 'static chunking: tokens shared by neighbouring chunks (with --max-tokens)')
    .addHelpText(
      'after',
      examples('fathom ingest ./docs --store notes', 'fathom ingest a.pdf b.md --store notes --max-tokens 400 --overlap 100'),
    )
    .action(async (paths: string[], options: { store: string; maxTokens?: string; overlap?: string }, command: Command) =>
      (await import('./ingest')).ingest(await target(command), paths, options),
    );

  program
    .command('search')
    .summary('ranked passages of a store, with file names and scores')
    .description('Searches one vector store and prints the best passages with their file names and scores (0..1).')
    .argument('<store>', 'the vector store: id or name')
    .argument('<query...>', 'what to look for')
    .option('--limit <n>', 'how many passages', '5')
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom search notes "how do bees talk"', 'fathom search vs_abc123 tides --limit 3 --json'))
    .action(async (store: string, words: string[], options: { limit: string; json?: boolean }, command: Command) =>
      (await import('./search')).search(await target(command), store, words.join(' '), { limit: options.limit, json: !!options.json }),
    );

  const stores = program.command('stores').summary('list or delete vector stores').description('Vector stores of the account.');
  stores
    .command('list')
    .description('Lists the vector stores of the account.')
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom stores list', 'fathom stores list --json'))
    .action(async (options: { json?: boolean }, command: Command) =>
      (await import('./stores')).listStores(await target(command), !!options.json),
    );
  stores
    .command('delete')
    .description('Deletes a vector store (its files stay).')
    .argument('<store>', 'id or name')
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom stores delete notes'))
    .action(async (store: string, options: { json?: boolean }, command: Command) =>
      (await import('./stores')).deleteStore(await target(command), store, !!options.json),
    );

  const files = program.command('files').summary('list or delete uploaded files').description('Files of the account.');
  files
    .command('list')
    .description('Lists the files of the account.')
    .option('--purpose <purpose>', 'only files of this purpose (assistants, batch, user_data…)')
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom files list', 'fathom files list --purpose assistants --json'))
    .action(async (options: { purpose?: string; json?: boolean }, command: Command) =>
      (await import('./stores')).listFiles(await target(command), options.purpose, !!options.json),
    );
  files
    .command('delete')
    .description('Deletes a file and removes it from every vector store.')
    .argument('<file-id>', 'file-…')
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom files delete file-abc123'))
    .action(async (fileId: string, options: { json?: boolean }, command: Command) =>
      (await import('./stores')).deleteFile(await target(command), fileId, !!options.json),
    );

  const accounts = program
    .command('accounts')
    .summary('list or create accounts (admin)')
    .description('Accounts (admin: FATHOM_ADMIN_KEY in remote mode).');
  accounts
    .command('list')
    .description('Lists every account with its balance and number of keys.')
    .addOption(jsonOption())
    .addHelpText(
      'after',
      examples('fathom accounts list', 'fathom --base-url https://fathom.example.com --admin-key … accounts list --json'),
    )
    .action(async (options: { json?: boolean }, command: Command) =>
      (await import('./admin')).listAccounts(await target(command, 'admin'), !!options.json),
    );
  accounts
    .command('create')
    .description('Creates an account and its first API key (shown once).')
    .argument('<name>', "the account's name")
    .option('--balance <amount>', 'initial balance in currency units', Number)
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom accounts create "Team A" --balance 50'))
    .action(async (name: string, options: { balance?: number; json?: boolean }, command: Command) =>
      (await import('./admin')).createAccount(await target(command, 'admin'), name, options.balance, !!options.json),
    );

  const keys = program
    .command('keys')
    .summary('create, list, rotate or revoke API keys (admin)')
    .description('API keys (admin: FATHOM_ADMIN_KEY in remote mode).');
  keys
    .command('create')
    .description('Issues a new API key for an account (shown once).')
    .argument('<account-id>', 'acct_…')
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom keys create acct_abc123'))
    .action(async (accountId: string, options: { json?: boolean }, command: Command) =>
      (await import('./admin')).createKey(await target(command, 'admin'), accountId, !!options.json),
    );
  keys
    .command('list')
    .description('Lists keys (ids and hints, never the keys), of one account or of all.')
    .argument('[account-id]', 'only this account')
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom keys list', 'fathom keys list acct_abc123 --json'))
    .action(async (accountId: string | undefined, options: { json?: boolean }, command: Command) =>
      (await import('./admin')).listKeys(await target(command, 'admin'), accountId, !!options.json),
    );
  keys
    .command('revoke')
    .description('Revokes an API key, on every server process at once.')
    .argument('<key-id>', 'key_…')
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom keys revoke key_abc123'))
    .action(async (keyId: string, options: { json?: boolean }, command: Command) =>
      (await import('./admin')).revokeKey(await target(command, 'admin'), keyId, !!options.json),
    );

  keys
    .command('rotate')
    .description('Gives a key a new secret (shown once); the old one keeps working for the grace period.')
    .argument('<account-id>', 'acct_…')
    .argument('<key-id>', 'key_…')
    .addOption(new Option('--grace-period <seconds>', 'how long the old secret keeps working').default('0'))
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom keys rotate acct_abc123 key_abc123 --grace-period 3600'))
    .action(async (accountId: string, keyId: string, options: { gracePeriod: string; json?: boolean }, command: Command) =>
      (await import('./admin')).rotateKey(await target(command, 'admin'), accountId, keyId, options.gracePeriod, !!options.json),
    );

  const batches = program
    .command('batches')
    .summary('create, follow or cancel batches (a server runs them)')
    .description('The Batch API (/v1/batches): JSONL files of requests run in the background by a server.');
  batches
    .command('create')
    .description('Uploads a JSONL file of requests (purpose batch) and starts a batch over it.')
    .argument('<file>', 'the JSONL file: one {custom_id, method, url, body} per line')
    .addOption(
      new Option('--endpoint <path>', 'the endpoint every line calls')
        .choices(['/v1/chat/completions', '/v1/responses', '/v1/embeddings'])
        .default('/v1/chat/completions'),
    )
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom batches create requests.jsonl --endpoint /v1/embeddings'))
    .action(async (file: string, options: { endpoint: string; json?: boolean }, command: Command) =>
      (await import('./batches')).createBatch(await target(command), file, options.endpoint, !!options.json),
    );
  batches
    .command('get')
    .description("A batch's status, counts and files (and its line errors when it failed).")
    .argument('<batch-id>', 'batch_…')
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom batches get batch_abc123 --json'))
    .action(async (batchId: string, options: { json?: boolean }, command: Command) =>
      (await import('./batches')).getBatch(await target(command), batchId, !!options.json),
    );
  batches
    .command('list')
    .description("The account's batches.")
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom batches list'))
    .action(async (options: { json?: boolean }, command: Command) =>
      (await import('./batches')).listBatches(await target(command), !!options.json),
    );
  batches
    .command('cancel')
    .description('Cancels a batch; the lines that finished stay in its output file.')
    .argument('<batch-id>', 'batch_…')
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom batches cancel batch_abc123'))
    .action(async (batchId: string, options: { json?: boolean }, command: Command) =>
      (await import('./batches')).cancelBatch(await target(command), batchId, !!options.json),
    );

  program
    .command('usage')
    .summary('token usage by day and model')
    .description("The account's token usage per UTC day and model (GET /v1/usage).")
    .option('--from <day>', 'first day, YYYY-MM-DD (UTC)')
    .option('--to <day>', 'last day, YYYY-MM-DD (UTC)')
    .option('--model <id>', 'only this model')
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom usage', 'fathom usage --from 2026-11-01 --model openai/gpt-4o-mini --json'))
    .action(async (options: { from?: string; to?: string; model?: string; json?: boolean }, command: Command) =>
      (await import('./usage')).usage(await target(command), { ...options, json: !!options.json }),
    );

  const mcp = program.command('mcp').summary('connect MCP clients to this server').description("Fathom's MCP server (docs/mcp.md).");
  mcp
    .command('config')
    .description("Prints the JSON an MCP client needs for this server's /mcp endpoint and key.")
    .addOption(
      new Option('--client <client>', 'the client whose configuration to print')
        .choices(['cursor', 'claude-code', 'vscode', 'claude-desktop'])
        .default('cursor'),
    )
    .addHelpText(
      'after',
      examples('fathom mcp config > ~/.cursor/mcp.json', 'fathom --base-url https://fathom.example.com mcp config --client claude-desktop'),
    )
    .action(async (options: { client: 'cursor' }, command: Command) => {
      const { baseUrl, apiKey } = optionsOf(command);
      return (await import('./mcp')).mcpConfig({ client: options.client, baseUrl, apiKey });
    });

  program
    .command('doctor')
    .summary('check settings, database, disk, embedder and providers')
    .description(
      'Checks the settings, the database, free disk in the data dir, the embedder and every configured provider: one pass/fail line each; exit code 1 when one fails.',
    )
    .addHelpText('after', examples('fathom doctor', 'FATHOM_EMBEDDER=openai fathom doctor'))
    .action(async () => (await import('./doctor')).doctor());

  program
    .command('reindex')
    .summary('re-embed a store with the current embedder')
    .description(
      "Re-embeds one vector store's chunks with the current embedder and rebuilds its index (embedded only; stop the server first).",
    )
    .argument('[store]', 'id or name')
    .option('--all', 'every store built by another embedder')
    .addHelpText('after', examples('fathom reindex notes', 'fathom reindex --all'))
    .action(async (store: string | undefined, options: { all?: boolean }) => (await import('./reindex')).reindex(store, options));

  const models = program
    .command('models')
    .summary('fetch or list local embedding models')
    .description('Embedding models in FATHOM_MODELS_DIR.');
  models
    .command('pull')
    .description('Downloads an embedding model into FATHOM_MODELS_DIR (for air-gapped installs).')
    .argument('[model-id]', 'default: FATHOM_EMBEDDING_MODEL')
    .addHelpText('after', examples('fathom models pull', 'fathom models pull Xenova/bge-small-en-v1.5'))
    .action(async (modelId: string | undefined) => (await import('./models')).pullModel(modelId));
  models
    .command('list')
    .description('Lists the models found in FATHOM_MODELS_DIR.')
    .addOption(jsonOption())
    .addHelpText('after', examples('fathom models list'))
    .action(async (options: { json?: boolean }) => (await import('./models')).listModels(options));

  program
    .command('migrate-data')
    .summary('copy a SQLite data dir into PostgreSQL, verified')
    .description(
      'Copies the SQLite data dir (FATHOM_DATA_DIR) into an empty PostgreSQL database with pgvector (nothing is embedded again), then compares every count; exit code 1 when one differs. Stop the server first.',
    )
    .requiredOption('--to <url>', 'postgres://user:password@host:port/database')
    .addHelpText('after', examples('fathom migrate-data --to postgres://fathom:secret@db:5432/fathom'))
    .action(async (options: { to: string }) => (await import('./migrate-data')).migrateDataCommand(options));

  program
    .command('completion')
    .summary('print a shell completion script')
    .description('Prints the completion script for bash, zsh or fish.')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      examples(
        'eval "$(fathom completion bash)"   # in ~/.bashrc',
        'eval "$(fathom completion zsh)"    # in ~/.zshrc',
        'fathom completion fish > ~/.config/fish/completions/fathom.fish',
      ),
    )
    .action(async (shell: 'bash') => {
      process.stdout.write((await import('./completion')).completionScript(shell, program));
    });

  return program;
}
