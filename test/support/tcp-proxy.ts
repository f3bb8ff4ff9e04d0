// A TCP proxy on loopback that a test can cut and restore: the way to take a database away from the
// service without touching the machine's PostgreSQL, which other tests share.
import net from 'node:net';

export class TcpProxy {
  private readonly sockets = new Set<net.Socket>();
  private cutOff = false;
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
      const upstream = net.connect(target.port, target.host);
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
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
