/**
 * The client under test as a child process (`iotc certify --exec "<command>"`): run through the
 * shell in a process group of its own, so that ending it ends whatever it started (an SDK script
 * under a wrapper, a firmware simulator and its helpers). Ended with SIGTERM, then SIGKILL when it
 * lingers; a group of its own gets no Ctrl-C from the terminal, so whenever iotc itself exits
 * before it has ended the client (an error, a signal) the group is killed on the way out.
 */
import { type ChildProcess, spawn } from 'node:child_process';

/** How long a client has between SIGTERM and SIGKILL. */
const TERM_GRACE_MS = 2000;

export class ClientProcess {
  private readonly child: ChildProcess;
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  readonly exited: Promise<number | string>;
  private ended = false;

  constructor(command: string, env: Record<string, string>) {
    this.child = spawn(command, {
      shell: true,
      detached: true,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, ...env },
    });
    process.on('exit', this.killGroup);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.ended = true;
        resolve(code ?? signal ?? 'unknown');
      });
      this.child.once('error', (error) => {
        this.ended = true;
        resolve(`could not start: ${error.message}`);
      });
    });
  }

  get running(): boolean {
    return !this.ended;
  }

  /**
   * Waits up to `ms` for the client to end by itself; then SIGTERM to its group and, after a grace,
   * SIGKILL to what is left of the group in any case: the shell may be gone while a process it
   * started ignored SIGTERM or runs on.
   */
  async end(ms: number): Promise<number | string> {
    if (!(await this.exitedWithin(ms))) {
      this.signal('SIGTERM');
      await this.exitedWithin(TERM_GRACE_MS);
    }
    this.killGroup();
    process.off('exit', this.killGroup);
    return this.exited;
  }

  private async exitedWithin(ms: number): Promise<boolean> {
    if (this.ended) return true;
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), ms);
      }),
    ]);
    clearTimeout(timer);
    return ended;
  }

  /** SIGKILL to the whole group, whether its leader (the shell) has ended or not. */
  private readonly killGroup = (): void => {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };

  private signal(name: NodeJS.Signals): void {
    if (this.ended || this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, name); // the whole group: the shell and what it started
    } catch {
      // the group is gone already
    }
  }
}
