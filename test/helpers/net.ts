/** Network helpers of the tests. */
import { createServer, type AddressInfo } from 'node:net';

/**
 * A TCP port on 127.0.0.1 that nothing listens on: bound by a server, then released (a connection to it is refused,
 * unless the system hands the port out again in between, which it does not do at once).
 */
export async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
