/**
 * The set-up lock two windows share, without `vscode` (tested with real processes).
 *
 * The lock is a directory (`mkdir` is atomic: exactly one window creates it) holding
 * `owner.json`: the holder's pid and its process start time. A window that
 * finds the lock held checks its holder at once and on every poll: a pid that no longer runs,
 * or that now belongs to a process started at another time (the pid was reused), means the
 * holder died (a window closed mid-install), and the lock is taken over immediately. A lock
 * without a readable owner (a build before this one, or a window that crashed
 * between its `mkdir` and its write) is taken over once older than {@link UNOWNED_STALE_MS}.
 */

import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import * as path from "node:path";

export interface LockOwner {
  pid: number;
  /** Start time of the process in clock ticks since boot (Linux /proc/<pid>/stat field 22). */
  start?: string;
}

/** Owner-less locks (older builds) are abandoned after this long. */
export const UNOWNED_STALE_MS = 60_000;
export const POLL_MS = 250;

/** The start time of a process (Linux), or undefined where /proc does not tell. */
export function processStart(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces and parentheses) start at field 3.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19];
  } catch {
    return undefined;
  }
}

/** Whether the process `owner` names still runs (the same process, not a reused pid). */
export function ownerAlive(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ESRCH") return false;
    // EPERM: a process of another user holds the pid; it is alive, but is it the holder?
  }
  if (owner.start === undefined) return true;
  const now = processStart(owner.pid);
  return now === undefined || now === owner.start;
}

export function readOwner(lockDir: string): LockOwner | undefined {
  try {
    const data = JSON.parse(readFileSync(path.join(lockDir, "owner.json"), "utf8")) as LockOwner;
    return Number.isInteger(data.pid) && data.pid > 0 ? data : undefined;
  } catch {
    return undefined;
  }
}

export type LockEvent =
  | { kind: "waiting"; owner: LockOwner | undefined }
  | { kind: "taken-over"; owner: LockOwner | undefined; why: string };

/**
 * Acquire `lockDir`; resolves to its release. `onEvent` hears "waiting" before the first wait
 * (so the caller can show progress first) and "taken-over" when a dead holder's lock is removed.
 */
export async function acquireLock(lockDir: string, onEvent: (e: LockEvent) => void = () => undefined,
  self: LockOwner = { pid: process.pid, start: processStart(process.pid) }): Promise<() => void> {
  let announced = false;
  for (;;) {
    if (tryCreate(lockDir, self)) {
      return () => {
        if (readOwner(lockDir)?.pid === self.pid) rmSync(lockDir, { recursive: true, force: true });
      };
    }
    const owner = readOwner(lockDir);
    const why = staleReason(lockDir, owner);
    if (why !== undefined) {
      if (takeAway(lockDir, owner)) onEvent({ kind: "taken-over", owner, why });
      continue;
    }
    if (!announced) {
      onEvent({ kind: "waiting", owner });
      announced = true;
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

function tryCreate(lockDir: string, self: LockOwner): boolean {
  try {
    mkdirSync(lockDir); // atomic: exactly one window creates it
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  }
  writeFileSync(path.join(lockDir, "owner.json"), JSON.stringify(self));
  return true;
}

/** Why the lock's holder is gone, or undefined while it may still be working. */
function staleReason(lockDir: string, owner: LockOwner | undefined): string | undefined {
  if (owner === undefined) {
    let age: number;
    try {
      age = Date.now() - statSync(lockDir).mtimeMs;
    } catch {
      return undefined; // released meanwhile: the next try takes it
    }
    return age > UNOWNED_STALE_MS ? `no owner recorded and ${Math.round(age / 1000)} s old` : undefined;
  }
  if (ownerAlive(owner)) return undefined;
  return `its holder (pid ${owner.pid}) is no longer running`;
}

/**
 * Remove a dead holder's lock: renamed aside first (one window wins the rename), then its owner
 * is checked again; a live lock renamed by mistake (another window took the dead one's place in
 * between) is put back.
 */
function takeAway(lockDir: string, owner: LockOwner | undefined): boolean {
  const aside = `${lockDir}.stale.${process.pid}.${Math.random().toString(36).slice(2)}`;
  try {
    renameSync(lockDir, aside);
  } catch {
    return false; // another window moved it first
  }
  const moved = readOwner(aside);
  if (moved?.pid !== owner?.pid || moved?.start !== owner?.start) {
    try {
      renameSync(aside, lockDir);
      return false;
    } catch {
      // The place is taken again: that window holds the lock; this one was never needed.
    }
  }
  rmSync(aside, { recursive: true, force: true });
  return true;
}
