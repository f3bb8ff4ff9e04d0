// A throwaway PostgreSQL server whose data directory lives on a tmpfs of a fixed size that the test
// mounted, so a test can fill the disk under it without touching the machine's own server (5432).
// Needs root (mount) and initdb/pg_ctl on PATH; `privatePostgresUnavailable()` says why not.
import { execFile } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import net from 'node:net';

const run = promisify(execFile);
/** initdb refuses root; the server runs as this user. */
const PG_USER = 'postgres';

export async function privatePostgresUnavailable(): Promise<string | null> {
  if (process.platform !== 'linux') return 'not Linux (tmpfs)';
  if (process.getuid?.() !== 0) return 'not root: cannot mount a tmpfs';
  for (const bin of ['initdb', 'pg_ctl']) {
    try {
      await run('which', [bin]);
    } catch {
      return `${bin} not on PATH`;
    }
  }
  try {
    await run('id', [PG_USER]);
  } catch {
    return `no user ${PG_USER} to run the server as`;
  }
  const probe = mkdtempSync(join(tmpdir(), 'tw-tmpfs-probe-'));
  try {
    await run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', probe]);
    await run('umount', [probe]);
    return null;
  } catch (err) {
    return `mounting a tmpfs is not permitted (${(err as Error).message.split('\n')[0]})`;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export class PrivatePostgres {
  private filler: string;
  private constructor(
    readonly root: string,
    readonly port: number,
    readonly logFile: string,
  ) {
    this.filler = join(root, 'filler');
  }

  get url(): string {
    return `postgres://${PG_USER}@127.0.0.1:${this.port}/postgres`;
  }

  private get dataDir(): string {
    return join(this.root, 'data');
  }

  /** Mounts a tmpfs of `sizeMb`, initialises a cluster on it (1 MB WAL segments) and starts it. */
  static async start(sizeMb: number): Promise<PrivatePostgres> {
    const root = mkdtempSync(join(tmpdir(), 'tw-pgfull-'));
    await run('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'tmpfs', root]);
    await run('chown', [PG_USER, root]);
    // The server log lives off the tmpfs, so it can say what went wrong while the disk is full.
    const logFile = `${root}.log`;
    closeSync(openSync(logFile, 'w'));
    await run('chown', [PG_USER, logFile]);
    const pg = new PrivatePostgres(root, await freePort(), logFile);
    await pg.as(['initdb', '-D', pg.dataDir, '-U', PG_USER, '-A', 'trust', '--wal-segsize=1', '--no-sync']);
    await pg.ctl('start');
    return pg;
  }

  private async as(argv: string[]): Promise<{ stdout: string }> {
    return run('runuser', ['-u', PG_USER, '--', ...argv], { timeout: 60_000 });
  }

  /** `pg_ctl start` (waits until it accepts connections) or `status`. */
  async ctl(action: 'start' | 'status'): Promise<string> {
    const opts = `-p ${this.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=${this.root} -c max_wal_size=32MB -c min_wal_size=2MB -c shared_buffers=16MB -c max_connections=40`;
    const argv = action === 'start' ? ['pg_ctl', 'start', '-w', '-D', this.dataDir, '-l', this.logFile, '-o', opts] : ['pg_ctl', 'status', '-D', this.dataDir];
    try {
      return (await this.as(argv)).stdout;
    } catch (err) {
      return `${(err as { stdout?: string }).stdout ?? ''}${(err as Error).message}`;
    }
  }

  /** Writes a file until the tmpfs is full; returns the bytes written. */
  fill(): number {
    const fd = openSync(this.filler, 'w');
    const chunk = Buffer.alloc(1 << 20, 1);
    let written = 0;
    try {
      for (;;) written += writeSync(fd, chunk);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
    } finally {
      closeSync(fd);
    }
    return written;
  }

  /** Removes the filler: the space is free again. */
  free(): void {
    rmSync(this.filler, { force: true });
  }

  async stop(): Promise<void> {
    this.free();
    if (existsSync(join(this.dataDir, 'postmaster.pid'))) await this.as(['pg_ctl', 'stop', '-m', 'immediate', '-D', this.dataDir]).catch(() => {});
    await run('umount', [this.root]).catch(() => run('umount', ['-l', this.root]));
    rmSync(this.root, { recursive: true, force: true });
    rmSync(this.logFile, { force: true });
  }
}
