/**
 * Free space on the disk that holds a directory, so that what a request or a job is about to
 * write is refused while there is time, rather than filling the disk for everyone.
 */
import { statfs } from 'node:fs/promises';

/** Bytes for people: GB or MB with a decimal or two, or whole bytes below a megabyte. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${Math.round((bytes / 1024 ** 3) * 100) / 100} GB`;
  if (bytes >= 1024 ** 2) return `${Math.round((bytes / 1024 ** 2) * 10) / 10} MB`;
  return `${bytes} bytes`;
}

/** Bytes an unprivileged process may still write on the disk of `dir`. */
export async function freeBytes(dir: string): Promise<number> {
  const stats = await statfs(dir);
  return stats.bavail * stats.bsize;
}

/**
 * Why `needed` bytes cannot be written under `dir` while keeping `reserve` bytes free, or
 * null when they can.
 */
export async function lackOfRoom(dir: string, reserve: number, needed: number): Promise<string | null> {
  const free = await freeBytes(dir);
  if (free - needed >= reserve) return null;
  return `not enough free disk space: ${formatBytes(free)} free, ${formatBytes(needed)} needed and ${formatBytes(reserve)} kept in reserve`;
}
