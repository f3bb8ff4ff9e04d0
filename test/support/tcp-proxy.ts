// A TCP proxy on loopback that a test can cut and restore: the way to take a database away from the
// service without touching the machine's PostgreSQL, which other tests share.
import net from 'node:net';

export class TcpProxy {
  private readonly sockets = new Set<net.Socket>();
  private cutOff = false;
  private silent = false;
  private readonly pairs = new Set<[net.Socket, net.Socket]>();
  /** Connections refused or torn down while cut. */
  refused = 0;

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    let proxy: TcpProxy;
    const server = net.createServer((client) => {
      if (proxy.cutOff) {
        proxy.refused++;
        client.destroy();
        return;
      }
      if (proxy.silent) {
        // a black hole: the connection opens and nothing ever comes back
        client.pause();
        proxy.sockets.add(client);
        client.on('close', () => proxy.sockets.delete(client));
        client.on('error', () => {});
        return;
      }
      const upstream = net.connect(target.port, target.host);
      const pair: [net.Socket, net.Socket] = [client, upstream];
      proxy.pairs.add(pair);
      client.on('close', () => proxy.pairs.delete(pair));
      for (const s of [client, upstream]) {
        proxy.sockets.add(s);
        s.on('close', () => proxy.sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = new TcpProxy(server, (server.address() as net.AddressInfo).port);
    return proxy;
  }

  /** Tears down every open connection (resets, as a network cut or a database restart would) and refuses new ones. */
  cut(): void {
    this.cutOff = true;
    for (const s of this.sockets) s.resetAndDestroy();
    this.refused += this.sockets.size;
    this.sockets.clear();
  }

  restore(): void {
    this.cutOff = false;
    this.silent = false;
  }

  /**
   * Stops forwarding in both directions while every connection stays open, and answers no new one:
   * a network partition, which neither side learns of from TCP.
   */
  silence(): void {
    this.silent = true;
    for (const [client, upstream] of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
