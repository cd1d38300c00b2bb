import { Fathom, loadConfig, pinoLogger } from '@fathom/core';
import { createServerLogger } from '../logger';
import { createMetricsServer } from '../metrics-server';
import { createServer } from '../server';
import { refuseSecondSqliteServer, writeServerLock } from './server-lock';

/** `fathom serve`: the platform API on HOST:PORT, and the agent service on AGENTS_PORT when set. */
export async function serve(): Promise<void> {
  const settings = loadConfig();
  refuseSecondSqliteServer(settings.dataDir, settings.databaseUrl);
  const logger = createServerLogger();
  const fathom = await Fathom.open({ logger: pinoLogger(logger) });
  const { config } = fathom;
  if (fathom.bootstrap.generatedKey) {
    console.log('\nCreated the default account. Its API key is shown once; keep it:\n');
    console.log(`  ${fathom.bootstrap.generatedKey}\n`);
  }
  const servers: Array<Awaited<ReturnType<typeof createServer>>> = [];
  const main = await createServer(fathom, { surface: config.agentsPort ? 'platform' : 'all', loggerInstance: logger });
  const address = await main.listen({ port: config.port, host: config.host });
  servers.push(main);
  if (config.agentsPort) {
    const agents = await createServer(fathom, { surface: 'agents', loggerInstance: logger });
    await agents.listen({ port: config.agentsPort, host: config.host });
    servers.push(agents);
  }
  if (config.metricsPort !== undefined) {
    const metricsServer = await createMetricsServer(fathom);
    await metricsServer.listen({ port: config.metricsPort, host: config.host });
    servers.push(metricsServer);
  }
  // Embedded CLI commands find this server through the record and go through it instead of fighting it.
  const removeLock = writeServerLock(config.dataDir, address);
  process.once('exit', removeLock);
  const where = config.databaseUrl ? fathom.database.location : config.dataDir;
  console.log(`Fathom is serving ${address}/v1 (data in ${where})`);
  const stop = async () => {
    removeLock();
    for (const server of servers) await server.close();
    await fathom.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
