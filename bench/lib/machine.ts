// What the benchmarks ran on, for the report: numbers only mean something next to the machine.
import { readFileSync } from 'node:fs';
import os from 'node:os';

export interface MachineInfo {
  cores: number;
  cpu: string;
  memoryGiB: number;
  node: string;
  os: string;
}

function distribution(): string | null {
  try {
    const text = readFileSync('/etc/os-release', 'utf8');
    return /^PRETTY_NAME="?([^"\n]+)"?/m.exec(text)?.[1] ?? null;
  } catch {
    return null;
  }
}

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cores: os.availableParallelism?.() ?? cpus.length,
    cpu: cpus[0]?.model.trim() || 'unknown CPU',
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    node: process.version,
    os: `${distribution() ?? os.type()} (${os.platform()} ${os.release()}, ${os.arch()})`,
  };
}

export function describeMachine(m: MachineInfo): string {
  return `${m.cores} cores (${m.cpu}), ${m.memoryGiB} GiB memory, Node ${m.node}, ${m.os}`;
}
